import { describe, expect, it } from '@jest/globals';
import {
  CoordinateOutcome,
  fingerprintOf,
  type CoordinateRequest,
  type IdempotencyCoordinator,
  type IdempotentAction,
} from '@retry-safe/idempotency';
import { RuntimeSettings, type ChainContext } from '@retry-safe/app-shell';
import type { Charge, PaymentCommand } from '@retry-safe/contracts';
import { loadPaymentsConfig, type PaymentsConfig } from '../../src/config/payments-config.js';
import { paymentsSettings } from '../../src/config/payments-settings.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { PaymentsService, chargeOperation } from '../../src/payments/payments.service.js';
import type { ProviderClient, ProviderChargeRequest } from '../../src/provider/provider.client.js';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';

// What every environment must hold (the test value of the internal credential).
const REQUIRED = { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };

const command: PaymentCommand = {
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
  orderId: '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978',
  amount: 1999,
  currency: 'EUR',
};
const chain: ChainContext = { requestId: 'req-1', deadline: Date.now() + 5_000 };

/** The service as the app builds it: with the settings in force of `config`. */
function serviceFor(config: PaymentsConfig, coordinator: IdempotencyCoordinator, provider: ProviderClient) {
  const settings = new RuntimeSettings(paymentsSettings(config));
  return new PaymentsService(config, coordinator, provider, new MetricsService(), settings);
}

/** A provider that records its calls. */
function fakeProvider() {
  const calls: Array<{ request: ProviderChargeRequest; key: string }> = [];
  const provider = {
    charge: async (request: ProviderChargeRequest, key: string) => {
      calls.push({ request, key });
      return {
        id: `ch_${calls.length}`,
        amount: request.amount,
        currency: request.currency,
        status: 'succeeded',
      };
    },
  } as unknown as ProviderClient;
  return { provider, calls };
}

/** A coordinator that runs the action once per key and replays afterwards (what the real one does, minus Redis). */
function fakeCoordinator() {
  const requests: Array<CoordinateRequest<Charge>> = [];
  const stored = new Map<string, string>();
  const coordinator = {
    coordinateWithOutcome: async (request: CoordinateRequest<Charge>, action: IdempotentAction<Charge>) => {
      requests.push(request);
      const id = `${request.operation}:${request.key}`;
      const previous = stored.get(id);
      if (previous !== undefined) {
        return {
          value: request.codec.decode(previous),
          outcome: CoordinateOutcome.Replayed,
          fencingToken: 1,
        };
      }
      const value = await action({ signal: new AbortController().signal, fencingToken: 1, protected: true });
      stored.set(id, request.codec.encode(value));
      return { value, outcome: CoordinateOutcome.Executed, fencingToken: 1 };
    },
  } as unknown as IdempotencyCoordinator;
  return { coordinator, requests };
}

describe('PaymentsService', () => {
  it('scopes keys by tenant: payment.charge.<tenant hex>', () => {
    expect(chargeOperation('A0000000-0000-4000-8000-00000000000A')).toBe(
      'payment.charge.a000000000004000800000000000000a',
    );
  });

  it('coordinates with the tenant operation, the TTL, a fingerprint of the parameters and the provider key', async () => {
    const { provider, calls } = fakeProvider();
    const { coordinator, requests } = fakeCoordinator();
    const service = serviceFor(loadPaymentsConfig({ ...REQUIRED }), coordinator, provider);

    const first = await service.charge(command, 'key-1', chain);
    const replay = await service.charge(command, 'key-1', chain);

    expect(requests[0]).toMatchObject({
      operation: 'payment.charge.a000000000004000800000000000000a',
      key: 'key-1',
      ttlMs: 3_600_000,
      fingerprint: fingerprintOf({ orderId: command.orderId, amount: 1999, currency: 'EUR' }),
    });
    expect(requests[0]?.waitTimeoutMs).toBeLessThanOrEqual(5_000);
    expect(calls).toEqual([
      {
        request: { amount: 1999, currency: 'EUR', reference: command.orderId },
        key: 'payment.charge.a000000000004000800000000000000a.key-1',
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
  });

  it('with IDEMPOTENCY_ENABLED=false charges on every call (the unprotected design)', async () => {
    const { provider, calls } = fakeProvider();
    const { coordinator, requests } = fakeCoordinator();
    const service = serviceFor(
      loadPaymentsConfig({ ...REQUIRED, IDEMPOTENCY_ENABLED: 'false' }),
      coordinator,
      provider,
    );

    const first = await service.charge(command, 'key-1', chain);
    const second = await service.charge(command, 'key-1', chain);

    expect(requests).toHaveLength(0);
    expect(calls).toHaveLength(2);
    expect(first.outcome).toBe('unprotected');
    expect(second.charge.id).not.toBe(first.charge.id);
  });

  it('gives a re-executed Charge the id of the first: the same key and provider charge, the same id', async () => {
    // The provider dedups by its key (as provider-sim and Stripe do); the coordinator lost the first completion.
    const providerCharges = new Map<string, string>();
    const provider = {
      charge: async (request: ProviderChargeRequest, key: string) => {
        const id = providerCharges.get(key) ?? `ch_${providerCharges.size + 1}`;
        providerCharges.set(key, id);
        return { id, amount: request.amount, currency: request.currency, status: 'succeeded' };
      },
    } as unknown as ProviderClient;
    const forgetful = {
      coordinateWithOutcome: async (
        _request: CoordinateRequest<Charge>,
        action: IdempotentAction<Charge>,
      ) => ({
        value: await action({ signal: new AbortController().signal, fencingToken: 1, protected: true }),
        outcome: CoordinateOutcome.Executed,
        fencingToken: 1,
      }),
    } as unknown as IdempotencyCoordinator;
    const service = serviceFor(loadPaymentsConfig({ ...REQUIRED }), forgetful, provider);

    const first = await service.charge(command, 'key-1', chain);
    const again = await service.charge(command, 'key-1', chain);
    const other = await service.charge(command, 'key-2', chain);

    expect(again.charge).toEqual(first.charge);
    expect(first.charge.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(other.charge.id).not.toBe(first.charge.id);
  });
});
