import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startPostgres, type PostgresHandle } from '@retry-safe/testing';
import { IdempotencyErrorCode } from '../../src/index.js';
import type { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { postgresWorld } from './postgres-support.js';
import { countingAction, sleep, type StoreWorld } from './support.js';

// A private PostgreSQL this suite stops, pauses and restarts: every call stays bounded by commandTimeoutMs.
let server: PostgresHandle;
let pool: pg.Pool;
let w: StoreWorld<PostgresIdempotencyStore> | undefined;

beforeAll(async () => {
  server = await startPostgres({ controllable: true });
  pool = server.pool({ max: 10 });
}, 30_000);

afterEach(async () => {
  server.control!.resume();
  await w?.close();
  w = undefined;
});

afterAll(async () => {
  await pool.end();
  await server.close();
});

async function timed<T>(promise: Promise<T>): Promise<{ result: T | unknown; ms: number }> {
  const started = Date.now();
  const result = await promise.catch((e: unknown) => e);
  return { result, ms: Date.now() - started };
}

describe.each([
  ['stopped', () => server.control!.stop(), () => server.control!.start()],
  [
    'paused (SIGSTOP: connections stay open, nothing answers)',
    async () => server.control!.pause(),
    async () => server.control!.resume(),
  ],
])('PostgreSQL %s', (_, breakServer, healServer) => {
  it('fail-closed rejects within the command timeout and never runs the action; after recovery the key charges once', async () => {
    w = await postgresWorld(pool, { commandTimeoutMs: 300 });
    const world = w;
    const coordinator = world.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' });
    const action = countingAction();
    // Warm connections, so the paused case also covers statements sent on open connections.
    await coordinator.coordinate(world.request('k-warm'), action.run);
    await breakServer();

    const first = await timed(coordinator.coordinate(world.request('k-down'), action.run));
    const second = await timed(coordinator.coordinate(world.request('k-down'), action.run));

    for (const call of [first, second]) {
      expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-down' });
      expect(call.ms).toBeLessThan(300 + 700);
    }
    expect(action.executions).toBe(1);
    expect(world.events.filter((e) => e.type === 'store_error').length).toBeGreaterThanOrEqual(2);

    await healServer();
    // A claim that reached the server before it froze may be granted when it thaws; the store gives such a
    // grant back, so the key is not blocked for a lease.
    await waitForCharge(() => coordinator.coordinate(world.request('k-down'), action.run));
    await coordinator.coordinate(world.request('k-down'), action.run);
    expect(action.executions).toBe(2);
  });

  it('fail-open runs the action unprotected: two calls, two effects', async () => {
    w = await postgresWorld(pool, { commandTimeoutMs: 300 });
    const coordinator = w.coordinator({ onStoreUnavailable: 'fail-open', inFlight: 'raise' });
    const action = countingAction();
    await breakServer();

    const first = await coordinator.coordinateWithOutcome(w.request('k-open'), action.run);
    const second = await coordinator.coordinateWithOutcome(w.request('k-open'), action.run);

    expect(action.executions).toBe(2);
    expect([first.outcome, second.outcome]).toEqual(['unprotected', 'unprotected']);
    expect(w.events.filter((e) => e.type === 'fail_open')).toHaveLength(2);
    await healServer();
  });
});

async function waitForCharge(call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await call().catch((e: unknown) => e);
    if (!(result instanceof Error)) return;
    if (Date.now() > deadline) throw result;
    await sleep(100);
  }
}
