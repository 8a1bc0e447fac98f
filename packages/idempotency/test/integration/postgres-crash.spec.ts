import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import { ordersWorld, type Order, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';

// Transactional mode on PostgreSQL, crashed at every point: the backend terminated, or the owner process killed.
const suite = suitePostgres();
let w: OrdersWorld;
beforeEach(async () => {
  w = await ordersWorld(suite.pool);
});

describe('a crash at every point leaves nothing or everything; the retry places the order exactly once', () => {
  const points = ['after-claim', 'after-write', 'before-commit', 'after-commit'] as const;
  const committed = (point: string) => point === 'after-commit';

  /** Waits until no session of the crashed owner is left (its transaction rolled back or committed). */
  async function noSessionLeft(applicationName: string): Promise<void> {
    await waitFor('the crashed session to end', async () => {
      const { rows } = await w.pool.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [
        applicationName,
      ]);
      if (rows.length > 0) throw new Error('session still there');
    });
  }

  async function retryPlacesOnce(key: string, point: string): Promise<void> {
    expect(await w.counts(key)).toEqual(
      committed(point) ? { orders: 1, records: 1 } : { orders: 0, records: 0 },
    );
    const retry = await w.placeOnce(key);
    expect(retry.outcome).toBe(committed(point) ? 'replayed' : 'executed');
    await expect(w.placeOnce(key)).resolves.toMatchObject({ outcome: 'replayed', value: retry.value });
    expect(w.executions).toBe(committed(point) ? 0 : 1);
    expect(await w.counts(key)).toEqual({ orders: 1, records: 1 });
  }

  it.each(points)('backend terminated (pg_terminate_backend) %s', async (point) => {
    const key = `k-term-${point}`;
    const owner = suite.server.client({ application_name: `owner-${point}` });
    owner.on('error', () => undefined);
    await owner.connect();
    const pid = (await owner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const terminate = async (at: string) => {
      if (at === point) await w.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    };
    const attempt = (async () => {
      await owner.query('BEGIN');
      await w.coordinator.coordinateInTransaction(owner, w.request(key), async ({ transaction }) => {
        await terminate('after-claim');
        const { rows } = await transaction.query(
          `INSERT INTO ${w.orders} (key) VALUES ($1) RETURNING id, key`,
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
        w.table,
        w.orders,
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
