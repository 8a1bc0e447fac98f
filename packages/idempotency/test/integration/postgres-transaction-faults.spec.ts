import { afterEach, describe, expect, it } from '@jest/globals';
import { poolThrough, ProxyDirection } from '@retry-safe/testing';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  jsonCodec,
  type CoordinateRequest,
} from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { busySessions, faultyPostgres, suiteFaultyStores } from './faulty-store.js';
import { freshTable } from './postgres-support.js';
import { countingAction, eventually, type Charge } from './support.js';

// Transactional calls behind a silent network. Their statements run on the caller's connection with the caller's
// bounds (the store adds none of its own in a caller's transaction): here node-postgres' query_timeout and the
// server's idle_in_transaction_session_timeout, as the services set them (docs/operations.md, "bounds").
const BOUND_MS = 500;
const TIMER_SLACK_MS = 400;

const suite = suiteFaultyStores(faultyPostgres);
const open: { close(): Promise<void> }[] = [];
const busy = (table: string, where?: string) => busySessions(suite().direct, table, where);

afterEach(async () => {
  await suite().net.heal();
  for (const thing of open.splice(0).reverse()) await thing.close();
});

const blocking = { operation: 'payment.charge.t1', key: 'k-tx', owner: 'blocker', fingerprint: 'fp-a' };

/** A caller's pool through the proxy with the caller's bounds, a store on it, and the test's direct reads. */
async function callerWorld(boundMs = BOUND_MS) {
  const { server, proxy, direct } = suite();
  const table = freshTable();
  const migrator = new PostgresIdempotencyStore(direct, { table, sweepIntervalMs: 0 });
  await migrator.migrate();
  await migrator.close();
  const pool = poolThrough(server, proxy, {
    max: 4,
    query_timeout: boundMs,
    options: `-c idle_in_transaction_session_timeout=${boundMs}`,
  });
  const store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0, commandTimeoutMs: boundMs });
  // Another process' store, straight to the server.
  const other = new PostgresIdempotencyStore(direct, { table, sweepIntervalMs: 0 });
  open.push({ close: () => pool.end() }, store, other);
  const request: CoordinateRequest<Charge> = {
    operation: 'payment.charge.t1',
    key: 'k-tx',
    ttlMs: 60_000,
    codec: jsonCodec<Charge>(),
    fingerprint: 'fp-a',
  };
  const state = async () =>
    (await direct.query<{ state: string }>(`SELECT state FROM ${table} WHERE key = 'k-tx'`)).rows[0]?.state;
  return { table, pool, direct: other, coordinator: new IdempotencyCoordinator(store), request, state };
}

/** BEGIN on a new connection of the caller's pool, then `fault`, then the transactional call: what it threw, and how long it took. */
async function failedTransactionalCall(
  w: Awaited<ReturnType<typeof callerWorld>>,
  run: (ctx: { fencingToken: number }) => Promise<Charge>,
  fault: () => void,
) {
  const client = await w.pool.connect();
  client.on('error', () => undefined);
  try {
    await client.query('BEGIN');
    fault();
    const started = Date.now();
    const failed = await w.coordinator
      .coordinateInTransaction(client, w.request, run)
      .then(() => undefined)
      .catch((e: unknown) => e);
    const failedAt = Date.now();
    await client.query('ROLLBACK').catch(() => undefined);
    return { failed, took: failedAt - started, failedAt };
  } finally {
    client.release(true);
  }
}

describe('a silent network during a transactional claim', () => {
  it.each([ProxyDirection.Replies, ProxyDirection.Requests])(
    "%s blackholed: the call fails within the caller's bound, no transaction outlives it, the retry runs once",
    async (direction) => {
      const w = await callerWorld();
      const action = countingAction();
      const { failed, took } = await failedTransactionalCall(w, action.run, () =>
        suite().net.blackhole(direction),
      );

      expect(failed).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
      expect(took).toBeLessThan(BOUND_MS + TIMER_SLACK_MS);
      expect(action.executions).toBe(0);
      await eventually('no open transaction', async () => (await busy(w.table)) === 0, BOUND_MS * 2);
      expect(await w.state()).toBeUndefined();

      await suite().net.heal();
      await expect(w.coordinator.coordinateWithOutcome(w.request, action.run)).resolves.toMatchObject({
        outcome: 'executed',
      });
      expect(action.executions).toBe(1);
      expect(await w.state()).toBe('c');
    },
  );

  it("a claim that ran before the network went silent both ways holds its row no longer than the server's bound; then the retry runs once", async () => {
    const boundMs = 1_000;
    const w = await callerWorld(boundMs);
    const action = countingAction();
    // Another transaction holds the key for now, so the caller's claim is on the server, waiting, when the network
    // goes silent; once that transaction ends, the claim runs, and neither its answer nor the caller's ROLLBACK
    // gets through.
    const blocker = await suite().direct.connect();
    await blocker.query('BEGIN');
    await w.direct.inTransaction(blocker).claim({ ...blocking, leaseMs: 30_000, retainMs: 60_000 });
    const call = failedTransactionalCall(w, action.run, () => undefined);
    await eventually(
      'the claim waits',
      async () => (await busy(w.table, `AND wait_event_type = 'Lock'`)) === 1,
    );
    suite().net.blackhole(ProxyDirection.Both);
    await blocker.query('ROLLBACK');
    blocker.release();
    await eventually('the claim ran', async () => (await busy(w.table)) === 1);
    const ran = Date.now();
    // Another process, straight to the server, from now on: blocked only until the server ends the silent
    // transaction (its idle_in_transaction_session_timeout).
    const retrying = retryUntilRun(new IdempotencyCoordinator(w.direct), w.request, action.run).then(
      (retry) => ({
        retry,
        at: Date.now(),
      }),
    );

    const { failed, failedAt } = await call;
    expect(failed).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
    expect(failedAt - ran).toBeLessThan(boundMs + TIMER_SLACK_MS);
    const { retry, at } = await retrying;
    expect(retry).toMatchObject({ outcome: 'executed' });
    expect(at - ran).toBeLessThan(boundMs + TIMER_SLACK_MS);
    expect(action.executions).toBe(1);
    expect(await busy(w.table)).toBe(0);
    expect(await w.state()).toBe('c');
  });
});

/** Calls until the key is no longer in progress; the first answer that is not IDEMPOTENCY_IN_PROGRESS. */
async function retryUntilRun(
  coordinator: IdempotencyCoordinator,
  request: CoordinateRequest<Charge>,
  run: Parameters<IdempotencyCoordinator['coordinate']>[1],
) {
  for (;;) {
    const attempt = await coordinator
      .coordinateWithOutcome(request, run as (ctx: { fencingToken: number }) => Promise<Charge>)
      .catch((e: { code?: string }) => e);
    if (!('code' in attempt) || attempt.code !== IdempotencyErrorCode.InProgress) return attempt;
  }
}
