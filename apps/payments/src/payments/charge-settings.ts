import { Inject, Injectable } from '@nestjs/common';
import { type ChainContext } from '@retry-safe/app-shell/http';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import type { PaymentCommand } from '@retry-safe/contracts';
import { remainingMs } from '@retry-safe/http-client';
import type { IdempotentCallSettings } from '@retry-safe/idempotency';
import type { IdempotentSettingsProvider } from '@retry-safe/idempotency/nest';
import { PAYMENTS_CONFIG, type PaymentsConfig } from '../config/payments-config.js';
import { idempotencyInForce, type PaymentsSettings } from '../config/payments-settings.js';

/** The arguments of a charge, as its callers pass them. */
export type ChargeArguments = [command: PaymentCommand, idempotencyKey: string, chain: ChainContext];

/**
 * The idempotency settings of each charge, asked by the library on every call: the start-up `IDEMPOTENCY_*`
 * settings with a scenario's `PUT /__config` on top (they may change on a running process), including the off
 * switch (`IDEMPOTENCY_ENABLED=false`: the unprotected design, every call charges).
 */
@Injectable()
export class ChargeSettings implements IdempotentSettingsProvider<ChargeArguments> {
  constructor(
    @Inject(PAYMENTS_CONFIG) private readonly config: PaymentsConfig,
    private readonly settings: RuntimeSettings<PaymentsSettings>,
  ) {}

  idempotencySettings(_command: PaymentCommand, _key: string, chain: ChainContext): IdempotentCallSettings {
    const settings = idempotencyInForce(this.config, this.settings.current);
    return {
      enabled: settings.enabled,
      ttl: settings.ttlMs,
      inFlight: settings.inFlight,
      leaseMs: settings.leaseMs,
      renewLease: settings.renewLease,
      onStoreUnavailable: settings.onStoreUnavailable,
      // A waiter gives up with the chain's deadline: the caller has stopped listening by then.
      waitTimeoutMs: Math.max(10, Math.min(settings.leaseMs, remainingMs(chain.deadline))),
    };
  }
}
