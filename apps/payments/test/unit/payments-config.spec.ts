import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@retry-safe/app-shell/config';
import { loadPaymentsConfig } from '../../src/config/payments-config.js';
import { INTERNAL_SERVICE_DEFAULTS, TEST_INTERNAL_TOKEN } from '@retry-safe/testing';

// What every environment must hold (the test value of the internal credential).
const REQUIRED = { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };

describe('loadPaymentsConfig', () => {
  it('applies the defaults: the coordinator on, raise mode, fail-closed, 1 hour TTL, 30 s renewed lease', () => {
    expect(loadPaymentsConfig({ ...REQUIRED })).toEqual({
      port: 3002,
      provider: { url: 'http://127.0.0.1:3003', timeoutMs: 5_000, retries: 0 },
      redisUrl: 'redis://127.0.0.1:6379',
      redisCommandTimeoutMs: 2_000,
      idempotency: {
        enabled: true,
        inFlight: 'raise',
        ttlMs: 3_600_000,
        leaseMs: 30_000,
        renewLease: true,
        onStoreUnavailable: 'fail-closed',
        keyPrefix: 'idem:',
        commandTimeoutMs: 1_000,
      },
      ...INTERNAL_SERVICE_DEFAULTS,
    });
  });

  it('reads the designs scenarios compare', () => {
    const config = loadPaymentsConfig({
      ...REQUIRED,
      IDEMPOTENCY_ENABLED: 'false',
      IDEMPOTENCY_IN_FLIGHT: 'run',
      IDEMPOTENCY_TTL_MS: '1500',
      IDEMPOTENCY_LEASE_MS: '1000',
      IDEMPOTENCY_RENEW_LEASE: 'false',
      IDEMPOTENCY_ON_STORE_UNAVAILABLE: 'fail-open',
      IDEMPOTENCY_KEY_PREFIX: 'test:{idem}:',
      IDEMPOTENCY_COMMAND_TIMEOUT_MS: '200',
      PROVIDER_RETRIES: '2',
    });
    expect(config.idempotency).toEqual({
      enabled: false,
      inFlight: 'run',
      ttlMs: 1500,
      leaseMs: 1000,
      renewLease: false,
      onStoreUnavailable: 'fail-open',
      keyPrefix: 'test:{idem}:',
      commandTimeoutMs: 200,
    });
    expect(config.provider.retries).toBe(2);
  });

  it('names every invalid variable with its value', () => {
    const load = () =>
      loadPaymentsConfig({
        ...REQUIRED,
        IDEMPOTENCY_IN_FLIGHT: 'maybe',
        IDEMPOTENCY_TTL_MS: '500',
        IDEMPOTENCY_ON_STORE_UNAVAILABLE: 'fail-sometimes',
        IDEMPOTENCY_ENABLED: 'nope',
        PROVIDER_URL: 'provider',
      });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/IDEMPOTENCY_IN_FLIGHT="maybe": must be 'raise', 'wait' or 'run'/);
    expect(load).toThrow(/IDEMPOTENCY_TTL_MS="500": must be between 1000 and 2592000000/);
    expect(load).toThrow(/IDEMPOTENCY_ON_STORE_UNAVAILABLE="fail-sometimes"/);
    expect(load).toThrow(/IDEMPOTENCY_ENABLED="nope": must be 'true' or 'false'/);
    expect(load).toThrow(/PROVIDER_URL="provider": must be an http\(s\) URL/);
  });
});
