import { describe, expect, it } from '@jest/globals';
import { RuntimeSettings, SettingsOverridesSchema } from '../../src/admin/runtime-settings.service.js';
import { loadPaymentsConfig } from '../../src/config/payments-config.js';

describe('RuntimeSettings (PUT /__config)', () => {
  const startUp = loadPaymentsConfig({ IDEMPOTENCY_IN_FLIGHT: 'raise', IDEMPOTENCY_LEASE_MS: '30000' });

  it('starts with the environment and applies overrides on top; a field left out keeps its start-up value', () => {
    const settings = new RuntimeSettings(startUp);
    expect(settings.idempotency).toEqual(startUp.idempotency);

    settings.replace({ inFlight: 'wait', leaseMs: 1000 });

    expect(settings.idempotency).toEqual({ ...startUp.idempotency, inFlight: 'wait', leaseMs: 1000 });
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
    const settings = new RuntimeSettings(startUp);
    settings.replace({ enabled: false, inFlight: 'run' });
    settings.replace({ onStoreUnavailable: 'fail-open' });

    expect(settings.idempotency).toMatchObject({
      enabled: true,
      inFlight: 'raise',
      onStoreUnavailable: 'fail-open',
    });
    settings.reset();
    expect(settings.idempotency).toEqual(startUp.idempotency);
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
