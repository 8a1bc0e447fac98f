import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@retry-safe/app-shell/config';
import { loadOrdersConfig } from '../../src/config/orders-config.js';
import { INTERNAL_SERVICE_DEFAULTS, TEST_INTERNAL_TOKEN } from '@retry-safe/testing';

// What every environment must hold (the test value of the internal credential).
const REQUIRED = { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };

describe('loadOrdersConfig', () => {
  it('applies the defaults', () => {
    expect(loadOrdersConfig({ ...REQUIRED })).toEqual({
      port: 3001,
      paymentsUrls: ['http://127.0.0.1:3002'],
      redisUrl: 'redis://127.0.0.1:6379',
      redisClusterNodes: [],
      redisCommandTimeoutMs: 2_000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/retry_safe',
      databasePoolSize: 10,
      databaseTimeouts: { statementMs: 5_000, idleInTransactionMs: 5_000, connectMs: 2_000 },
      idempotency: { enabled: true, ttlMs: 3_600_000, commandTimeoutMs: 1_000 },
      bullmqPrefix: 'bull',
      outbox: {
        pollMs: 1_000,
        batchSize: 100,
        leaseMs: 5_000,
        retentionMs: 604_800_000,
        cleanupIntervalMs: 60_000,
        cleanupBatchSize: 1_000,
        jobBackoffMs: 1_000,
      },
      reservationSweepMs: 60_000,
      invoices: {
        maxVersions: 100,
        rateLimit: { limit: 300, windowMs: 60_000, keyPrefix: 'orders:invoice-rate:' },
      },
      upstream: { retries: 3, attemptTimeoutMs: 5_000 },
      ...INTERNAL_SERVICE_DEFAULTS,
    });
  });

  it('bounds every store call: Redis commands, PostgreSQL statements, idle transactions, connecting', () => {
    const config = loadOrdersConfig({
      ...REQUIRED,
      REDIS_COMMAND_TIMEOUT_MS: '500',
      DATABASE_STATEMENT_TIMEOUT_MS: '3000',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '4000',
      DATABASE_CONNECT_TIMEOUT_MS: '1500',
      OUTBOX_LEASE_MS: '2000',
    });
    expect([config.redisCommandTimeoutMs, config.databaseTimeouts, config.outbox.leaseMs]).toEqual([
      500,
      { statementMs: 3_000, idleInTransactionMs: 4_000, connectMs: 1_500 },
      2_000,
    ]);
    expect(() =>
      loadOrdersConfig({ ...REQUIRED, REDIS_COMMAND_TIMEOUT_MS: '5000', OUTBOX_LEASE_MS: '5000' }),
    ).toThrow(/OUTBOX_LEASE_MS="5000": must be longer than REDIS_COMMAND_TIMEOUT_MS \(5000\)/);
    expect(() => loadOrdersConfig({ ...REQUIRED, DATABASE_STATEMENT_TIMEOUT_MS: '0' })).toThrow(
      /DATABASE_STATEMENT_TIMEOUT_MS="0": must be between 100 and 600000/,
    );
  });

  it('reads a comma-separated list of payments replicas (round robin)', () => {
    const config = loadOrdersConfig({
      ...REQUIRED,
      PAYMENTS_URL: 'http://127.0.0.1:4001/, http://127.0.0.1:4002',
    });
    expect(config.paymentsUrls).toEqual(['http://127.0.0.1:4001', 'http://127.0.0.1:4002']);
  });

  it('names every invalid variable with its value', () => {
    const load = () =>
      loadOrdersConfig({
        ...REQUIRED,
        ORDERS_PORT: 'abc',
        PAYMENTS_URL: 'http://ok:1,not a url',
        REDIS_URL: 'http://127.0.0.1:6379',
        BULLMQ_PREFIX: 'has space',
        UPSTREAM_RETRIES: '-1',
        DATABASE_URL: 'mysql://127.0.0.1/retry_safe',
        DATABASE_POOL_SIZE: '0',
        INVOICE_JOB_BACKOFF_MS: '5',
      });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/ORDERS_PORT="abc": must be a number/);
    expect(load).toThrow(/PAYMENTS_URL="http:\/\/ok:1,not a url": must be an http\(s\) URL/);
    expect(load).toThrow(/REDIS_URL="http:\/\/127.0.0.1:6379": must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(load).toThrow(/BULLMQ_PREFIX="has space"/);
    expect(load).toThrow(/UPSTREAM_RETRIES="-1": must be between 0 and 10/);
    expect(load).toThrow(
      /DATABASE_URL="mysql:\/\/127.0.0.1\/retry_safe": must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
    expect(load).toThrow(/DATABASE_POOL_SIZE="0": must be between 1 and 100/);
    expect(load).toThrow(/INVOICE_JOB_BACKOFF_MS="5": must be between 10 and 60000/);
  });

  it('reads Redis Cluster nodes, and then wants a hash tag in the queue prefix', () => {
    const nodes = 'redis://127.0.0.1:7001,redis://127.0.0.1:7002';
    const config = loadOrdersConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: nodes, BULLMQ_PREFIX: '{invoices}' });
    expect([config.redisClusterNodes, config.bullmqPrefix]).toEqual([nodes.split(','), '{invoices}']);
    expect(() => loadOrdersConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: nodes })).toThrow(
      'BULLMQ_PREFIX=null: must contain a {hash tag} (e.g. {invoices}) when REDIS_CLUSTER_NODES is set',
    );
  });
});
