import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startPostgres, type PostgresHandle } from '@retry-safe/testing';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { ordersMigrations } from '../../src/database/migrations.js';

describe('the orders migrations upgrade a database that holds orders', () => {
  let postgres: PostgresHandle;
  let pool: pg.Pool;
  let db: Kysely<unknown>;

  beforeAll(async () => {
    postgres = await startPostgres();
    pool = postgres.pool();
    db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  });
  afterAll(async () => {
    await db?.destroy();
    await postgres?.close();
  });

  it('0005: amounts become bigint, every order starts with nothing reserved, its rows kept', async () => {
    const migrator = new Migrator({ db, provider: ordersMigrations });
    expect((await migrator.migrateTo('0003-outbox-trace-context')).error).toBeUndefined();
    const id = 'c0000000-0000-4000-8000-00000000000c';
    await pool.query(
      `INSERT INTO orders (id, tenant_id, amount, currency, paid_amount, status) VALUES ($1, $1, 5000, 'EUR', 2000, 'awaiting_payment')`,
      [id],
    );
    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const types = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE column_name IN ('amount', 'paid_amount', 'reserved_amount') AND table_schema = current_schema()
        ORDER BY table_name, column_name`,
    );
    expect(types.rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}`)).toEqual([
      'order_payment_reservations.amount bigint',
      'order_payments.amount bigint',
      'orders.amount bigint',
      'orders.paid_amount bigint',
      'orders.reserved_amount bigint',
    ]);
    const row = await pool.query('SELECT amount, paid_amount, reserved_amount FROM orders WHERE id = $1', [
      id,
    ]);
    expect(row.rows).toEqual([{ amount: '5000', paid_amount: '2000', reserved_amount: '0' }]);
    // Past what an integer holds: a sum of charges is not bounded by one order's amount.
    await pool.query('UPDATE orders SET paid_amount = 3000000000 WHERE id = $1', [id]);
  });
});
