import { describe, expect, it } from '@jest/globals';
import { INTERNAL_SERVICE_DEFAULTS } from '@retry-safe/testing';
import { loadConfig } from '../../src/config/app-config.js';

// The shell's defaults (`HOST`, `DRAIN_TIMEOUT_MS`, `LOG_LEVEL`, `FAULTS_ENABLED`, the server limits, not a demo), as
// every service's config carries them: those of an internal service less what only orders and payments read.
const {
  requestBudgetMs: _budget,
  bodyLimitBytes: _bodyLimit,
  internalToken: _token,
  ...SHELL_DEFAULTS
} = INTERNAL_SERVICE_DEFAULTS;

describe('loadConfig', () => {
  it('has a default for every variable', () => {
    expect(loadConfig({})).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      redisClusterNodes: [],
      redisCommandTimeoutMs: 2_000,
      mailProvider: { url: 'http://127.0.0.1:3003', timeoutMs: 5000 },
      port: 3004,
      worker: {
        prefix: 'bull',
        concurrency: 1,
        lockDurationMs: 30_000,
        stalledIntervalMs: 30_000,
        maxStalledCount: 1,
        retry: { baseMs: 1_000, capMs: 60_000, horizonMs: 86_400_000 },
        shutdownTimeoutMs: 20_000,
      },
      idempotency: { enabled: true, keyPrefix: 'idem:', leaseMs: 30_000, renewLease: true },
      ...SHELL_DEFAULTS,
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

  it('reads the retry policy and the Cluster nodes', () => {
    const config = loadConfig({
      WORKER_BACKOFF_BASE_MS: '50',
      WORKER_BACKOFF_CAP_MS: '400',
      WORKER_RETRY_HORIZON_MS: '2000',
      WORKER_SHUTDOWN_TIMEOUT_MS: '3000',
      REDIS_CLUSTER_NODES: 'redis://127.0.0.1:7001, redis://127.0.0.1:7002',
      BULLMQ_PREFIX: '{invoices}',
    });
    expect(config.worker.retry).toEqual({ baseMs: 50, capMs: 400, horizonMs: 2000 });
    expect(config.worker.shutdownTimeoutMs).toBe(3000);
    expect(config.redisClusterNodes).toEqual(['redis://127.0.0.1:7001', 'redis://127.0.0.1:7002']);
    expect(config.worker.prefix).toBe('{invoices}');
  });

  it.each([
    [
      { WORKER_BACKOFF_BASE_MS: '500', WORKER_BACKOFF_CAP_MS: '100' },
      'WORKER_BACKOFF_CAP_MS="100": must be at least WORKER_BACKOFF_BASE_MS (500)',
    ],
    [
      { WORKER_BACKOFF_CAP_MS: '5000', WORKER_RETRY_HORIZON_MS: '1000' },
      'WORKER_RETRY_HORIZON_MS="1000": must be at least WORKER_BACKOFF_CAP_MS (5000)',
    ],
    [
      { REDIS_CLUSTER_NODES: 'redis://127.0.0.1:7001' },
      'BULLMQ_PREFIX=null: must contain a {hash tag} (e.g. {invoices}) when REDIS_CLUSTER_NODES is set',
    ],
    [{ REDIS_CLUSTER_NODES: 'http://127.0.0.1:7001' }, 'REDIS_CLUSTER_NODES="http://127.0.0.1:7001"'],
    [{ BULLMQ_PREFIX: 'a{}b' }, 'BULLMQ_PREFIX="a{}b": braces must enclose one non-empty hash tag'],
    [{ BULLMQ_PREFIX: '{a}{b' }, 'BULLMQ_PREFIX="{a}{b": braces must enclose one non-empty hash tag'],
    [{ WORKER_RETRY_HORIZON_MS: '0' }, 'WORKER_RETRY_HORIZON_MS="0": must be between 1 and 2592000000'],
  ])('refuses %j at start-up with a message naming it', (env, expected) => {
    expect(() => loadConfig(env)).toThrow(expected);
  });
});
