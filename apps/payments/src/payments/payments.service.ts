import { Inject, Injectable } from '@nestjs/common';
import { remainingMs } from '@retry-safe/http-client';
import {
  CoordinateOutcome,
  IdempotencyCoordinator,
  fingerprintOf,
  schemaCodec,
  type CoordinateOutcome as Outcome,
} from '@retry-safe/idempotency';
import { IDEMPOTENCY_COORDINATOR } from '@retry-safe/idempotency/nest';
import { RuntimeSettings, type ChainContext } from '@retry-safe/app-shell';
import { ChargeSchema, type Charge, type PaymentCommand } from '@retry-safe/contracts';
import { PAYMENTS_CONFIG, type PaymentsConfig } from '../config/payments-config.js';
import { idempotencyInForce, type PaymentsSettings } from '../config/payments-settings.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { ProviderClient } from '../provider/provider.client.js';
import { chargeIdOf } from './charge-id.js';

/** A Charge and how it was obtained. */
export interface PaymentResult {
  readonly charge: Charge;
  /** `replayed` when it is the stored Charge of an earlier request with the same key. */
  readonly outcome: Outcome;
}

const chargeCodec = schemaCodec(ChargeSchema);

/** The idempotency scope of a tenant's charges: keys of two tenants never meet. */
export function chargeOperation(tenantId: string): string {
  return `payment.charge.${tenantId.replaceAll('-', '').toLowerCase()}`;
}

/** The provider's idempotency key of a charge: stable across every retry of the client's key. */
function providerKeyOf(operation: string, idempotencyKey: string): string {
  return `${operation}.${idempotencyKey}`;
}

/**
 * The charge use case: one provider charge per tenant and key, whatever the retries.
 *
 * Through the coordinator (`IDEMPOTENCY_ENABLED`, the default): operation `payment.charge.<tenant hex>`, the client's
 * key, a fingerprint of orderId, amount and currency (the same key with other parameters is refused), and the Charge
 * stored for `IDEMPOTENCY_TTL_MS`. The provider gets `<operation>.<key>` as its own idempotency key, so even a
 * charge whose answer was lost (the action failed, the reservation was released) is not made twice by the retry.
 */
@Injectable()
export class PaymentsService {
  constructor(
    @Inject(PAYMENTS_CONFIG) private readonly config: PaymentsConfig,
    @Inject(IDEMPOTENCY_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly provider: ProviderClient,
    private readonly metrics: MetricsService,
    // The settings in force: start-up, or a scenario's `PUT /__config`.
    private readonly settings: RuntimeSettings<PaymentsSettings>,
  ) {}

  async charge(command: PaymentCommand, idempotencyKey: string, chain: ChainContext): Promise<PaymentResult> {
    const operation = chargeOperation(command.tenantId);
    const settings = idempotencyInForce(this.config, this.settings.current);
    if (!settings.enabled) {
      // The unprotected design: every call that reaches this line charges.
      return this.count({
        charge: await this.execute(command, operation, idempotencyKey, chain),
        outcome: CoordinateOutcome.Unprotected,
      });
    }
    const { value, outcome } = await this.coordinator.coordinateWithOutcome(
      {
        operation,
        key: idempotencyKey,
        ttlMs: settings.ttlMs,
        codec: chargeCodec,
        fingerprint: fingerprintOf({
          orderId: command.orderId,
          amount: command.amount,
          currency: command.currency,
        }),
        // Per call, so the settings in force apply (they may change on a running process, see RuntimeSettings).
        inFlight: settings.inFlight,
        leaseMs: settings.leaseMs,
        renewLease: settings.renewLease,
        onStoreUnavailable: settings.onStoreUnavailable,
        // A waiter gives up with the chain's deadline: the caller has stopped listening by then.
        waitTimeoutMs: Math.max(10, Math.min(settings.leaseMs, remainingMs(chain.deadline))),
      },
      () => this.execute(command, operation, idempotencyKey, chain),
    );
    return this.count({ charge: value, outcome });
  }

  private async execute(
    command: PaymentCommand,
    operation: string,
    idempotencyKey: string,
    chain: ChainContext,
  ): Promise<Charge> {
    const providerCharge = await this.provider.charge(
      { amount: command.amount, currency: command.currency, reference: command.orderId },
      providerKeyOf(operation, idempotencyKey),
      chain,
    );
    return ChargeSchema.parse({
      // Derived, not random: a re-execution that the provider answers with the same charge gives the same id.
      id: chargeIdOf(operation, idempotencyKey, providerCharge.id),
      orderId: command.orderId,
      amount: command.amount,
      currency: command.currency,
      status: 'succeeded',
      providerChargeId: providerCharge.id,
    });
  }

  private count(result: PaymentResult): PaymentResult {
    this.metrics.payments.inc({ outcome: result.outcome });
    return result;
  }
}
