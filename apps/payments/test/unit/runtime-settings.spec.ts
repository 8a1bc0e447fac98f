import { describe, expect, it } from '@jest/globals';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { loadPaymentsConfig } from '../../src/config/payments-config.js';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import {
  SettingsOverridesSchema,
  idempotencyInForce,
  paymentsSettings,
  type PaymentsSettings,
} from '../../src/config/payments-settings.js';

// What every environment must hold (the test value of the internal credential).
const REQUIRED = { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };

describe('RuntimeSettings (PUT /__config)', () => {
  const startUp = loadPaymentsConfig({
    ...REQUIRED,
    IDEMPOTENCY_IN_FLIGHT: 'raise',
    IDEMPOTENCY_LEASE_MS: '30000',
  });
  const inForce = (settings: RuntimeSettings<PaymentsSettings>) =>
    idempotencyInForce(startUp, settings.current);

  it('starts with the environment and applies overrides on top; a field left out keeps its start-up value', () => {
    const settings = new RuntimeSettings(paymentsSettings(startUp));
    expect(inForce(settings)).toEqual(startUp.idempotency);

    settings.replace({ inFlight: 'wait', leaseMs: 1000 });

    expect(inForce(settings)).toEqual({ ...startUp.idempotency, inFlight: 'wait', leaseMs: 1000 });
    expect(settings.snapshot()).toEqual({
      settings: {
        enabled: true,
        inFlight: 'wait',
        leaseMs: 1000,
        renewLease: true,
        onStoreUnavailable: 'fail-closed',
      },
      overrides: { inFlight: 'wait', leaseMs: 1000 },
    });
  });

  it('PUT replaces every override; DELETE goes back to the environment', () => {
    const settings = new RuntimeSettings(paymentsSettings(startUp));
    settings.replace({ enabled: false, inFlight: 'run' });
    settings.replace({ onStoreUnavailable: 'fail-open' });

    expect(inForce(settings)).toMatchObject({
      enabled: true,
      inFlight: 'raise',
      onStoreUnavailable: 'fail-open',
    });
    settings.reset();
    expect(inForce(settings)).toEqual(startUp.idempotency);
  });

  it.each([
    ['an unknown field', { ttlMs: 5 }],
    ['an unknown mode', { inFlight: 'sometimes' }],
    ['a lease under 10 ms', { leaseMs: 5 }],
    ['a string for a boolean', { enabled: 'false' }],
    ['no body', undefined],
  ])('refuses %s', (_label, body) => {
    expect(SettingsOverridesSchema.safeParse(body).success).toBe(false);
  });
});
