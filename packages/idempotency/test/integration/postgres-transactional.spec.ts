import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { waitFor, withTransaction } from '@retry-safe/testing';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  jsonCodec,
  type CoordinateRequest,
  type IdempotencyEvent,
} from '../../src/index.js';
import { PostgresIdempotencyStore, kyselyTransaction } from '../../src/postgres/index.js';
import { freshTable, suitePostgres } from './postgres-support.js';

interface Order {
  id: number;
  key: string;
}

const suite = suitePostgres();
let table: string;
let orders: string;
let store: PostgresIdempotencyStore;
let events: IdempotencyEvent[];
let coordinator: IdempotencyCoordinator;
let executions: number;

let pool: pg.Pool;

beforeEach(async () => {
  pool = suite.pool;
  table = freshTable();
  orders = `orders_${randomBytes(6).toString('hex')}`;
  store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  await store.migrate();
  await pool.query(`CREATE TABLE ${orders} (id serial PRIMARY KEY, key text NOT NULL)`);
  events = [];
  coordinator = new IdempotencyCoordinator(store, { onEvent: (e) => events.push(e) });
  executions = 0;
});

const request = (key: string, fingerprint = 'fp-order'): CoordinateRequest<Order> => ({
  operation: 'orders.place',
  key,
  ttlMs: 60_000,
  codec: jsonCodec<Order>(),
  fingerprint,
});

/** The business write the record must commit with: one order row. */
async function placeOrder(transaction: pg.PoolClient, key: string): Promise<Order> {
  executions += 1;
  const { rows } = await transaction.query<Order>(
    `INSERT INTO ${orders} (key) VALUES ($1) RETURNING id, key`,
    [key],
  );
  return rows[0]!;
}

async function counts(key: string): Promise<{ orders: number; records: number }> {
  const o = await pool.query(`SELECT count(*)::int AS n FROM ${orders} WHERE key = $1`, [key]);
  const r = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE key = $1`, [key]);
  return { orders: o.rows[0].n, records: r.rows[0].n };
}

const placeOnce = (key: string, fingerprint?: string) =>
  withTransaction(pool, (client) =>
    coordinator.coordinateInTransactionWithOutcome(client, request(key, fingerprint), ({ transaction }) =>
      placeOrder(transaction, key),
    ),
  );

describe('transactional mode', () => {
  it('commits the record with the order; a repeat replays it without running or writing anything', async () => {
    const first = await placeOnce('k-commit');
    const again = await placeOnce('k-commit');

    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-commit' } });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(executions).toBe(1);
    expect(await counts('k-commit')).toEqual({ orders: 1, records: 1 });
    expect(events.map((e) => e.type)).toEqual(['miss', 'hit']);
  });

  it('ROLLBACK leaves neither the record nor the order, and the retry runs', async () => {
    const client = await pool.connect();
    await client.query('BEGIN');
    await coordinator.coordinateInTransaction(client, request('k-rollback'), ({ transaction }) =>
      placeOrder(transaction, 'k-rollback'),
    );
    await client.query('ROLLBACK');
    client.release();
    expect(await counts('k-rollback')).toEqual({ orders: 0, records: 0 });

    await expect(placeOnce('k-rollback')).resolves.toMatchObject({ outcome: 'executed' });
    expect(executions).toBe(2);
    expect(await counts('k-rollback')).toEqual({ orders: 1, records: 1 });
  });

  it('a failed action leaves the key free even when the caller commits anyway', async () => {
    const failed = await withTransaction(pool, (client) =>
      coordinator
        .coordinateInTransaction(client, request('k-fail'), async () => {
          executions += 1;
          throw new Error('out of stock');
        })
        .catch((e: unknown) => e),
    );
    expect(failed).toMatchObject({ message: 'out of stock' });

    await expect(placeOnce('k-fail')).resolves.toMatchObject({ outcome: 'executed' });
    expect(executions).toBe(2);
    expect(await counts('k-fail')).toEqual({ orders: 1, records: 1 });
  });

  it('a value the codec cannot encode: IDEMPOTENCY_UNENCODABLE_RESULT; committed anyway, the action never runs again', async () => {
    const unencodable = { ...request('k-unencodable'), codec: jsonCodec<Order & { n?: bigint }>() };
    const place = () =>
      withTransaction(pool, (client) =>
        coordinator
          .coordinateInTransaction(client, unencodable, async ({ transaction }) => ({
            ...(await placeOrder(transaction, 'k-unencodable')),
            n: 1n,
          }))
          .catch((e: unknown) => e),
      );

    const errors = [await place(), await place()];
    expect(errors).toMatchObject([
      { code: IdempotencyErrorCode.UnencodableResult },
      { code: IdempotencyErrorCode.UnencodableResult },
    ]);
    expect(executions).toBe(1);
    expect(await counts('k-unencodable')).toEqual({ orders: 1, records: 1 });
  });

  it('refuses a key reused with another fingerprint before the action runs', async () => {
    await placeOnce('k-reuse');
    await expect(placeOnce('k-reuse', 'fp-other')).rejects.toMatchObject({
      code: IdempotencyErrorCode.KeyReuse,
      storedFingerprint: 'fp-order',
      requestFingerprint: 'fp-other',
    });
    expect(executions).toBe(1);
    expect(await counts('k-reuse')).toEqual({ orders: 1, records: 1 });
  });

  describe('a concurrent duplicate in another transaction waits on the unique index', () => {
    async function firstHoldsTheKey(key: string) {
      const client = await pool.connect();
      await client.query('BEGIN');
      const value = await coordinator.coordinateInTransaction(client, request(key), ({ transaction }) =>
        placeOrder(transaction, key),
      );
      let settled = false;
      const duplicate = placeOnce(key).finally(() => (settled = true));
      // The duplicate's claim is blocked on the first transaction's row: it has not come back.
      await waitFor('the duplicate to wait on a lock', async () => {
        const { rows } = await pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%__claim%'",
        );
        if (rows.length === 0) throw new Error('not waiting yet');
      });
      expect(settled).toBe(false);
      return { client, value, duplicate };
    }

    it('then replays the committed result', async () => {
      const { client, value, duplicate } = await firstHoldsTheKey('k-wait-commit');
      await client.query('COMMIT');
      client.release();

      await expect(duplicate).resolves.toEqual({ value, outcome: 'replayed', fencingToken: 1 });
      expect(executions).toBe(1);
      expect(await counts('k-wait-commit')).toEqual({ orders: 1, records: 1 });
    });

    it('or runs the action once the first rolls back', async () => {
      const { client, duplicate } = await firstHoldsTheKey('k-wait-rollback');
      await client.query('ROLLBACK');
      client.release();

      await expect(duplicate).resolves.toMatchObject({ outcome: 'executed' });
      expect(executions).toBe(2);
      expect(await counts('k-wait-rollback')).toEqual({ orders: 1, records: 1 });
    });
  });

  it('reports a deadlock with IDEMPOTENCY_TRANSACTION_CONFLICT, and the other transaction commits', async () => {
    const [a, b] = [await pool.connect(), await pool.connect()];
    await a.query('BEGIN');
    await b.query('BEGIN');
    const claim = (client: pg.PoolClient, key: string) =>
      coordinator.coordinateInTransaction(client, request(key), ({ transaction }) =>
        placeOrder(transaction, key),
      );
    await claim(a, 'k-dl-1');
    await claim(b, 'k-dl-2');
    // Each now waits for the other's key: PostgreSQL aborts one of them after deadlock_timeout.
    const results = await Promise.allSettled([claim(a, 'k-dl-2'), claim(b, 'k-dl-1')]);
    const rejected = results.filter((r) => r.status === 'rejected');

    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
      code: IdempotencyErrorCode.TransactionConflict,
      sqlState: '40P01',
    });
    const winner = results[0]!.status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    await loser.query('ROLLBACK');
    await winner.query('COMMIT');
    a.release();
    b.release();
    expect((await counts('k-dl-1')).records + (await counts('k-dl-2')).records).toBe(2);
  });

  it('reports a serialization failure (REPEATABLE READ) with IDEMPOTENCY_TRANSACTION_CONFLICT', async () => {
    const late = await pool.connect();
    await late.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await late.query('SELECT 1'); // takes the snapshot
    await placeOnce('k-serial'); // committed after that snapshot

    const error = await coordinator
      .coordinateInTransaction(late, request('k-serial'), ({ transaction }) =>
        placeOrder(transaction, 'k-serial'),
      )
      .catch((e: unknown) => e);
    await late.query('ROLLBACK');
    late.release();

    expect(error).toMatchObject({ code: IdempotencyErrorCode.TransactionConflict, sqlState: '40001' });
    expect(executions).toBe(1);
  });

  it('works through a Kysely transaction with the adapter', async () => {
    const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    const place = () =>
      db.transaction().execute((trx) =>
        coordinator.coordinateInTransactionWithOutcome(
          kyselyTransaction(trx),
          request('k-kysely'),
          async () => {
            executions += 1;
            const { rows } = await trx.executeQuery<Order>(
              CompiledQuery.raw(`INSERT INTO ${orders} (key) VALUES ($1) RETURNING id, key`, ['k-kysely']),
            );
            return rows[0]!;
          },
        ),
      );

    const first = await place();
    const again = await place();
    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-kysely' } });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(executions).toBe(1);
    expect(await counts('k-kysely')).toEqual({ orders: 1, records: 1 });
  });
});

describe('a crash at every point leaves nothing or everything; the retry places the order exactly once', () => {
  const points = ['after-claim', 'after-write', 'before-commit', 'after-commit'] as const;
  const committed = (point: string) => point === 'after-commit';

  /** Waits until no session of the crashed owner is left (its transaction rolled back or committed). */
  async function noSessionLeft(applicationName: string): Promise<void> {
    await waitFor('the crashed session to end', async () => {
      const { rows } = await pool.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [
        applicationName,
      ]);
      if (rows.length > 0) throw new Error('session still there');
    });
  }

  async function retryPlacesOnce(key: string, point: string): Promise<void> {
    expect(await counts(key)).toEqual(
      committed(point) ? { orders: 1, records: 1 } : { orders: 0, records: 0 },
    );
    const retry = await placeOnce(key);
    expect(retry.outcome).toBe(committed(point) ? 'replayed' : 'executed');
    await expect(placeOnce(key)).resolves.toMatchObject({ outcome: 'replayed', value: retry.value });
    expect(executions).toBe(committed(point) ? 0 : 1);
    expect(await counts(key)).toEqual({ orders: 1, records: 1 });
  }

  it.each(points)('backend terminated (pg_terminate_backend) %s', async (point) => {
    const key = `k-term-${point}`;
    const owner = suite.server.client({ application_name: `owner-${point}` });
    owner.on('error', () => undefined);
    await owner.connect();
    const pid = (await owner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const terminate = async (at: string) => {
      if (at === point) await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    };
    const attempt = (async () => {
      await owner.query('BEGIN');
      await coordinator.coordinateInTransaction(owner, request(key), async ({ transaction }) => {
        await terminate('after-claim');
        const { rows } = await transaction.query(
          `INSERT INTO ${orders} (key) VALUES ($1) RETURNING id, key`,
          [key],
        );
        await terminate('after-write');
        return rows[0] as Order;
      });
      await terminate('before-commit');
      await owner.query('COMMIT');
      await terminate('after-commit');
    })();

    const outcome = await attempt.then(
      () => 'ok',
      (e: unknown) => e,
    );
    if (committed(point)) expect(outcome).toBe('ok');
    else expect(outcome).toBeInstanceOf(Error);
    await owner.end().catch(() => undefined);
    await noSessionLeft(`owner-${point}`);
    await retryPlacesOnce(key, point);
  });

  it.each(points)('owner process killed (SIGKILL) %s', async (point) => {
    const key = `k-kill-${point}`;
    const url = new URL(suite.server.url);
    url.searchParams.set('application_name', `killed-${point}`);
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('./fixtures/transactional-owner.mjs', import.meta.url)),
        url.toString(),
        table,
        orders,
        key,
        point,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes(`reached ${point}`)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the owner exited with ${code} before ${point}`)));
    });
    child.kill('SIGKILL');
    await exited;
    await noSessionLeft(`killed-${point}`);
    await retryPlacesOnce(key, point);
  });
});
