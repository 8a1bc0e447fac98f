import type { INestApplication } from '@nestjs/common';
import { shellPlatform, whenReady } from '@retry-safe/app-shell';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import { createTestApp } from '@retry-safe/testing/nest';
import { AppModule } from '../../src/app.module.js';
import { PaymentRejectedError } from '../../src/common/payments-errors.js';
import { loadPaymentsConfig } from '../../src/config/payments-config.js';
import {
  ProviderClient,
  type ProviderCharge,
  type ProviderChargeRequest,
} from '../../src/provider/provider.client.js';

/** Stands for the payment provider's client: charges on every call (no dedup of its own), records the keys. */
export class FakeProvider {
  readonly charges: Array<{ request: ProviderChargeRequest; key: string }> = [];
  /** When set, the provider refuses every charge with this status (a 4xx). */
  rejectWith: number | undefined;

  async charge(request: ProviderChargeRequest, key: string): Promise<ProviderCharge> {
    if (this.rejectWith !== undefined) throw new PaymentRejectedError(this.rejectWith, 'card_declined');
    this.charges.push({ request, key });
    return {
      id: `ch_${this.charges.length}`,
      amount: request.amount,
      currency: request.currency,
      status: 'succeeded',
    };
  }
}

/** payments as `main.ts` builds it (without listening), on a real Redis, once ready, its provider client replaced. */
export function createPaymentsApp(
  provider: FakeProvider,
  env: Record<string, string>,
): Promise<INestApplication> {
  return createTestApp(
    AppModule.forRoot(loadPaymentsConfig({ INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env })),
    {
      overrides: [[ProviderClient, provider]],
      ...shellPlatform(),
      ready: whenReady,
    },
  );
}
