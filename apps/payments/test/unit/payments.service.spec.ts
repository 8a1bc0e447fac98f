import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { fingerprintOf } from '@retry-safe/idempotency';
import { MemoryIdempotencyStore } from '@retry-safe/idempotency/memory';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { type ChainContext } from '@retry-safe/app-shell/http';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import type { PaymentCommand } from '@retry-safe/contracts';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import {
  PAYMENTS_CONFIG,
  loadPaymentsConfig,
  type PaymentsConfig,
} from '../../src/config/payments-config.js';
import { paymentsSettings } from '../../src/config/payments-settings.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { ChargeSettings } from '../../src/payments/charge-settings.js';
import { PaymentsService, chargeOperation } from '../../src/payments/payments.service.js';
import { ProviderClient, type ProviderChargeRequest } from '../../src/provider/provider.client.js';

// What every environment must hold (the test value of the internal credential).
const REQUIRED = { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };

const command: PaymentCommand = {
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
  orderId: '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978',
  amount: 1999,
  currency: 'EUR',
};
const chain: ChainContext = { requestId: 'req-1', deadline: Date.now() + 5_000 };
const OPERATION = 'payment.charge.a000000000004000800000000000000a';

/** A provider that records its calls and, like provider-sim and Stripe, answers a key it saw with its charge. */
function fakeProvider() {
  const calls: Array<{ request: ProviderChargeRequest; key: string }> = [];
  const charges = new Map<string, string>();
  const provider = {
    charge: async (request: ProviderChargeRequest, key: string) => {
      calls.push({ request, key });
      const id = charges.get(key) ?? `ch_${charges.size + 1}`;
      charges.set(key, id);
      return { id, amount: request.amount, currency: request.currency, status: 'succeeded' };
    },
  };
  return { provider, calls };
}

/**
 * The service as the app wires it (the library's module, its settings provider, the settings in force), on the
 * in-memory store with a clock of the test's: no network.
 */
async function serviceFor(config: PaymentsConfig) {
  const { provider, calls } = fakeProvider();
  const now = Date.now();
  const store = new MemoryIdempotencyStore({ now: () => now, sweepIntervalMs: 0 });
  @Module({
    imports: [IdempotencyModule.forRoot({ store })],
    providers: [
      PaymentsService,
      ChargeSettings,
      MetricsService,
      { provide: PAYMENTS_CONFIG, useValue: config },
      { provide: RuntimeSettings, useValue: new RuntimeSettings(paymentsSettings(config)) },
      { provide: ProviderClient, useValue: provider },
    ],
  })
  class PaymentsTestModule {}
  const moduleRef = await Test.createTestingModule({ imports: [PaymentsTestModule] }).compile();
  await moduleRef.init();
  return { service: moduleRef.get(PaymentsService), store, calls, close: () => moduleRef.close() };
}

describe('PaymentsService', () => {
  it('scopes keys by tenant: payment.charge.<tenant hex>', () => {
    expect(chargeOperation('A0000000-0000-4000-8000-00000000000A')).toBe(OPERATION);
  });

  it('charges once per tenant and key: the record under the tenant operation for the TTL, the provider key', async () => {
    const { service, store, calls, close } = await serviceFor(loadPaymentsConfig({ ...REQUIRED }));
    try {
      const first = await service.charge(command, 'key-1', chain);
      const replay = await service.charge(command, 'key-1', chain);

      expect(store.entries()).toEqual([{ id: `${OPERATION}:key-1`, remainingMs: 3_600_000 }]);
      expect(calls).toEqual([
        {
          request: { amount: 1999, currency: 'EUR', reference: command.orderId },
          key: `${OPERATION}.key-1`,
        },
      ]);
      expect(first.outcome).toBe('executed');
      expect(first.charge).toEqual({
        id: expect.any(String),
        orderId: command.orderId,
        amount: 1999,
        currency: 'EUR',
        status: 'succeeded',
        providerChargeId: 'ch_1',
      });
      expect(replay.outcome).toBe('replayed');
      // The replay is the stored Charge, and serializes to the same bytes.
      expect(JSON.stringify(replay.charge)).toBe(JSON.stringify(first.charge));
      // Other parameters with the key: refused by the fingerprint of orderId, amount and currency.
      await expect(service.charge({ ...command, amount: 2000 }, 'key-1', chain)).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSE',
        requestFingerprint: fingerprintOf({ orderId: command.orderId, amount: 2000, currency: 'EUR' }),
      });
      expect(calls).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('with IDEMPOTENCY_ENABLED=false charges on every call (the unprotected design) and stores nothing', async () => {
    const { service, store, calls, close } = await serviceFor(
      loadPaymentsConfig({ ...REQUIRED, IDEMPOTENCY_ENABLED: 'false' }),
    );
    try {
      const first = await service.charge(command, 'key-1', chain);
      const second = await service.charge(command, 'key-1', chain);

      expect(calls).toHaveLength(2);
      expect([first.outcome, second.outcome]).toEqual(['unprotected', 'unprotected']);
      expect(store.entries()).toEqual([]);
    } finally {
      await close();
    }
  });

  it('gives a re-executed Charge the id of the first: the same key and provider charge, the same id', async () => {
    const { service, store, close } = await serviceFor(loadPaymentsConfig({ ...REQUIRED }));
    try {
      const first = await service.charge(command, 'key-1', chain);
      // The record is lost (a Redis that lost its data): the charge runs again, and the provider dedups by its key.
      store.clear();
      const again = await service.charge(command, 'key-1', chain);
      const other = await service.charge(command, 'key-2', chain);

      expect(again.outcome).toBe('executed');
      expect(again.charge).toEqual(first.charge);
      expect(first.charge.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(other.charge.id).not.toBe(first.charge.id);
    } finally {
      await close();
    }
  });
});
