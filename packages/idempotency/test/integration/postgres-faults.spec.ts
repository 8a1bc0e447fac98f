import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import {
  poolThrough,
  recordStatements,
  startPostgres,
  startTcpProxy,
  type PostgresHandle,
  type TcpProxy,
} from '@retry-safe/testing';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  jsonCodec,
  type CoordinateRequest,
} from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { freshTable } from './postgres-support.js';
import { countingAction, eventually, sleep, type Charge } from './support.js';

// The PostgreSQL store with a TCP proxy between it and the server: connections reset, replies lost, requests late.
// Issue 25: a lost connection must never crash the process, and a lost claim must never block its retry for a lease.
let server: PostgresHandle;
let proxy: TcpProxy;
let direct: pg.Pool;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await startPostgres();
  proxy = await startTcpProxy(server);
  direct = server.pool({ max: 4 });
}, 30_000);

afterEach(async () => {
  proxy.heal();
  for (const thing of open.splice(0).reverse()) await thing.close();
});

afterAll(async () => {
  await direct.end();
  await proxy.close();
  await server.close();
});

/** A store (and its coordinator) on a pool that goes through the proxy; migrated on the direct pool. */
async function proxiedStore(options: { max?: number; commandTimeoutMs?: number; leaseMs?: number } = {}) {
  const table = freshTable();
  await new PostgresIdempotencyStore(direct, { table, sweepIntervalMs: 0 }).migrate();
  const pool = poolThrough(server, proxy, { max: options.max ?? 4 });
  const store = new PostgresIdempotencyStore(pool, {
    table,
    sweepIntervalMs: 0,
    commandTimeoutMs: options.commandTimeoutMs ?? 1_000,
  });
  open.push({ close: () => pool.end() }, store);
  const coordinator = new IdempotencyCoordinator(store, { leaseMs: options.leaseMs ?? 30_000 });
  const request = (key: string): CoordinateRequest<Charge> => ({
    operation: 'payment.charge.t1',
    key,
    ttlMs: 60_000,
    codec: jsonCodec<Charge>(),
    fingerprint: 'fp-a',
  });
  const row = async (key: string) =>
    (await direct.query<{ state: string }>(`SELECT state FROM ${table} WHERE key = $1`, [key])).rows[0];
  return { table, pool, store, coordinator, request, row };
}

/** The proxied connection that carried `text` (a key goes out in every statement's parameters). */
const carrying = (text: string) => (request: string) => request.includes(text);

describe('a connection lost mid-claim', () => {
  it('standalone: a reset after PostgreSQL ran the claim is IDEMPOTENCY_STORE_UNAVAILABLE, not a crash; the retry runs at once', async () => {
    const w = await proxiedStore();
    const action = countingAction();
    await w.pool.query('SELECT 1'); // a connection up, so the claim is the request that gets reset

    const reset = proxy.resetAfterRequest(carrying('k-reset'));
    await expect(w.coordinator.coordinate(w.request('k-reset'), action.run)).rejects.toMatchObject({
      code: IdempotencyErrorCode.StoreUnavailable,
    });
    await reset;
    // The process is alive (an unhandled 'error' would have failed this test) and the key is not blocked.
    const started = Date.now();
    await expect(
      w.coordinator.coordinateWithOutcome(w.request('k-reset'), action.run),
    ).resolves.toMatchObject({
      outcome: 'executed',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(action.executions).toBe(1);
  });

  it('transactional: a reset during the claim fails the call, not the process, and leaves nothing behind', async () => {
    const w = await proxiedStore();
    const action = countingAction();
    const client = await w.pool.connect();
    try {
      await client.query('BEGIN');
      const reset = proxy.resetAfterRequest(carrying('k-reset-tx'));
      const failed = await w.coordinator
        .coordinateInTransaction(client, w.request('k-reset-tx'), action.run)
        .catch((e: unknown) => e);
      await reset;
      expect(failed).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
      await client.query('ROLLBACK').catch(() => undefined);
    } finally {
      client.release(true);
    }
    expect(action.executions).toBe(0);
    expect(await w.row('k-reset-tx')).toBeUndefined();
  });
});

describe('a claim that timed out', () => {
  it('whose request reached PostgreSQL only after the give-back: the retry is still acquired within a small bound', async () => {
    const w = await proxiedStore({ commandTimeoutMs: 400 });
    const action = countingAction();
    await w.pool.query('SELECT 1');
    // Only the connection the claim goes out on is slow; a give-back gets a new, fast one.
    proxy.connections.at(-1)!.delayRequests(1_200);

    await expect(w.coordinator.coordinate(w.request('k-late-claim'), action.run)).rejects.toMatchObject({
      code: IdempotencyErrorCode.StoreUnavailable,
    });
    // Long enough for the late claim to have landed, had its backend still been there to run it.
    await sleep(1_500);
    expect((await w.row('k-late-claim'))?.state).not.toBe('p');

    const started = Date.now();
    await expect(
      w.coordinator.coordinateWithOutcome(w.request('k-late-claim'), action.run),
    ).resolves.toMatchObject({ outcome: 'executed' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(action.executions).toBe(1);
  });
});

describe('claims that never left the pool', () => {
  it('50 claims timing out on an exhausted pool start no give-back: no release, no pool waiter left', async () => {
    const w = await proxiedStore({ max: 1, commandTimeoutMs: 200 });
    const statements = recordStatements(w.pool);
    const held = await w.pool.connect();
    let failures: unknown[];
    let waitingWhileHeld: number;
    try {
      failures = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          w.store
            .claim({
              operation: 'payment.charge.t1',
              key: `k-exhausted-${i}`,
              owner: `owner-${i}`,
              fingerprint: 'fp-a',
              leaseMs: 30_000,
              retainMs: 60_000,
            })
            .catch((e: unknown) => e),
        ),
      );
      await sleep(300);
      waitingWhileHeld = w.pool.waitingCount;
    } finally {
      held.release();
    }
    for (const failure of failures)
      expect(failure).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
    // Only the 50 claims' own requests for a connection (each given straight back once it comes): no release loop.
    expect(waitingWhileHeld).toBeLessThanOrEqual(50);
    await sleep(500);
    expect(statements.filter((s) => s.includes('__release'))).toEqual([]);
    expect(w.pool.waitingCount).toBe(0);
    await eventually('the pool is idle', () => w.pool.idleCount === w.pool.totalCount);
  });
});

describe('watch', () => {
  it('a watch that gave up waiting for its connection leaves no listener behind', async () => {
    const w = await proxiedStore({ max: 2, commandTimeoutMs: 200 });
    const id = { operation: 'payment.charge.t1', key: 'k-watch-late' };
    let heard = 0;
    const held = [await w.pool.connect(), await w.pool.connect()];
    const watching = w.store.watch(id, () => (heard += 1)).catch((e: unknown) => e);
    await expect(watching).resolves.toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
    for (const client of held) client.release();
    // The LISTEN connection arrives late; a completion announced after it must reach no one.
    await eventually('LISTEN is up', async () => {
      const { rows } = await direct.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      return rows[0]!.n > 0;
    });
    const owner = { ...id, owner: 'o1' };
    await w.store.claim({ ...owner, fingerprint: 'fp-a', leaseMs: 5_000, retainMs: 60_000 });
    await w.store.complete({ ...owner, payload: '{}', ttlMs: 60_000 });
    await sleep(300);
    expect(heard).toBe(0);
  });
});
