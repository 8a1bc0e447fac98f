import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';

describe('loadConfig', () => {
  it('has a default for every variable', () => {
    expect(loadConfig({})).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      mailProvider: { url: 'http://127.0.0.1:3003', timeoutMs: 5000 },
      port: 3004,
      worker: {
        prefix: 'bull',
        concurrency: 1,
        lockDurationMs: 30_000,
        stalledIntervalMs: 30_000,
        maxStalledCount: 1,
      },
      idempotency: { enabled: true, keyPrefix: 'idem:', leaseMs: 30_000, renewLease: true },
      faultsEnabled: false,
    });
  });

  it('reads the scenario settings', () => {
    const config = loadConfig({
      BULLMQ_PREFIX: 'e2e-1',
      IDEMPOTENCY_ENABLED: 'false',
      WORKER_LOCK_DURATION_MS: '1000',
      WORKER_STALLED_INTERVAL_MS: '500',
      FAULTS_ENABLED: 'true',
    });
    expect(config.worker).toMatchObject({ prefix: 'e2e-1', lockDurationMs: 1000, stalledIntervalMs: 500 });
    expect(config.idempotency.enabled).toBe(false);
    expect(config.faultsEnabled).toBe(true);
  });

  it('names every invalid variable with the value it got', () => {
    let message = '';
    try {
      loadConfig({ REDIS_URL: 'http://x', WORKER_CONCURRENCY: '0', IDEMPOTENCY_ENABLED: 'perhaps' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('invoice-worker: invalid environment');
    expect(message).toContain('REDIS_URL="http://x"');
    expect(message).toContain('WORKER_CONCURRENCY="0": must be between 1 and 1000');
    expect(message).toContain(`IDEMPOTENCY_ENABLED="perhaps": must be 'true' or 'false'`);
  });
});
