import { Injectable } from '@nestjs/common';
import {
  schemaCodec,
  type CoordinateOutcome as Outcome,
  type IdempotencyContext,
} from '@retry-safe/idempotency';
import { IdempotencyContextArg, IdempotentMethod, outcomeOf } from '@retry-safe/idempotency/nest';
import type { ChainContext } from '@retry-safe/app-shell/http';
import { ChargeSchema, type Charge, type PaymentCommand } from '@retry-safe/contracts';
import { MetricsService } from '../metrics/metrics.service.js';
import { ProviderClient } from '../provider/provider.client.js';
import { chargeIdOf } from './charge-id.js';
import { ChargeSettings, type ChargeArguments } from './charge-settings.js';

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
 * `charge` runs through the library's `@IdempotentMethod()`: operation `payment.charge.<tenant hex>`, the client's
 * key, a fingerprint of orderId, amount and currency (the same key with other parameters is refused), and the Charge
 * stored for `IDEMPOTENCY_TTL_MS`; the settings in force (including the off switch) come from {@link ChargeSettings}
 * on every call. The provider gets `<operation>.<key>` as its own idempotency key, so even a charge whose answer was
 * lost (the action failed, the reservation was released) is not made twice by the retry.
 */
@Injectable()
export class PaymentsService {
  constructor(
    private readonly provider: ProviderClient,
    private readonly metrics: MetricsService,
  ) {}

  async charge(command: PaymentCommand, idempotencyKey: string, chain: ChainContext): Promise<PaymentResult> {
    const { value, outcome } = await outcomeOf(this.chargeOnce(command, idempotencyKey, chain));
    this.metrics.payments.inc({ outcome });
    return { charge: value, outcome };
  }

  @IdempotentMethod<ChargeArguments, Charge>({
    operation: (command) => chargeOperation(command.tenantId),
    key: (_command, idempotencyKey) => idempotencyKey,
    codec: chargeCodec,
    fingerprint: (command) => ({
      orderId: command.orderId,
      amount: command.amount,
      currency: command.currency,
    }),
    settingsProvider: ChargeSettings,
  })
  private async chargeOnce(
    command: PaymentCommand,
    idempotencyKey: string,
    chain: ChainContext,
    @IdempotencyContextArg() context?: IdempotencyContext,
  ): Promise<Charge> {
    // The operation the record is under (the library always hands the context; unwrapped, e.g. in a unit test of
    // this class alone, it is derived the same way).
    const operation = context?.operation ?? chargeOperation(command.tenantId);
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
}
