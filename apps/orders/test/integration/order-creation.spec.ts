import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import type pg from 'pg';
import request from 'supertest';
import { createOrderOperation } from '../../src/orders/orders.service.js';
import { FakePayments, postOrder, useOrdersWorld } from './orders.app.js';
import { statementsWith, transactionsWith } from './statements.js';

// The store's default table: orders keeps its records next to its orders.
const RECORDS = 'idempotency_records';

describe("order creation: a fresh key's order and record in one statement, the claim for the rest", () => {
  const world = useOrdersWorld(new FakePayments());
  const app = (): INestApplication => world().app;
  const pool = (): pg.Pool => world().pool;

  const create = (key: string, body: object, tenant: string) => postOrder(app(), tenant, key, body);
  const counts = async (tenant: string) => {
    const { rows } = await pool().query<{ orders: string; records: string }>(
      `SELECT (SELECT count(*) FROM orders WHERE tenant_id = $1) AS orders,
        (SELECT count(*) FROM ${RECORDS} WHERE operation = $2) AS records`,
      [tenant, createOrderOperation(tenant)],
    );
    return { orders: Number(rows[0]!.orders), records: Number(rows[0]!.records) };
  };

  it("writes a fresh key's order and its completed record in one statement, outside any transaction", async () => {
    const tenant = randomUUID();
    let first!: request.Response;
    const statements = await statementsWith(/^(orders:|idem:)/, async () => {
      first = await create('one-transaction', { amount: 700, currency: 'EUR' }, tenant);
    });
    expect(first.status).toBe(201);
    // The library's one-statement form: the INSERT and the completed record together, no claim, no transaction.
    expect(statements.filter((s) => !/^idem:(sweep|mark_given_back)/.test(s.label))).toEqual([
      { label: 'orders:create', inTransaction: false },
    ]);
    const { rows } = await pool().query(
      `SELECT r.state, r.payload, o.created_at FROM ${RECORDS} r, orders o
        WHERE r.operation = $1 AND r.key = 'one-transaction' AND o.tenant_id = $2`,
      [createOrderOperation(tenant), tenant],
    );
    expect(rows).toEqual([{ state: 'c', payload: first.text, created_at: expect.any(Date) }]);
    expect(rows[0].created_at.toISOString()).toBe(first.body.createdAt);
    const replay = await create('one-transaction', { amount: 700, currency: 'EUR' }, tenant);
    expect([replay.status, replay.text, replay.headers['idempotent-replayed']]).toEqual([
      201,
      first.text,
      'true',
    ]);
    const read = await request(app().getHttpServer())
      .get(`/v1/orders/${first.body.id}`)
      .set('x-tenant-id', tenant)
      .set(TEST_INTERNAL_AUTHORIZATION);
    expect(read.body.createdAt).toBe(first.body.createdAt);
    expect(await counts(tenant)).toEqual({ orders: 1, records: 1 });
  });

  it('creates one order for 8 concurrent calls of one key, and refuses the key with another body', async () => {
    const tenant = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => create('race', { amount: 300, currency: 'USD' }, tenant)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
    const reused = await create('race', { amount: 301, currency: 'USD' }, tenant);
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await counts(tenant)).toEqual({ orders: 1, records: 1 });
  });

  it('creates the order again for a released record (the claim path), once', async () => {
    const tenant = randomUUID();
    const first = await create('released', { amount: 900, currency: 'EUR' }, tenant);
    // As a failed owner leaves its key: released, no result; the order row it wrote is gone with its rollback.
    await pool().query(`DELETE FROM orders WHERE tenant_id = $1`, [tenant]);
    await pool().query(
      `UPDATE ${RECORDS} SET state = 'r', payload = NULL WHERE operation = $1 AND key = 'released'`,
      [createOrderOperation(tenant)],
    );
    let again!: request.Response;
    const claimed = await transactionsWith('idem:claim', async () => {
      again = await create('released', { amount: 900, currency: 'EUR' }, tenant);
    });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(again.body.id).not.toBe(first.body.id);
    // The one statement met the record and wrote nothing; the claim took the released key over.
    expect(claimed).toEqual([
      ['BEGIN', 'idem:mark', 'idem:claim', 'orders:create:claimed', 'idem:tx_complete', 'COMMIT'],
    ]);
    const { rows } = await pool().query(`SELECT state, payload FROM ${RECORDS} WHERE operation = $1`, [
      createOrderOperation(tenant),
    ]);
    expect(rows).toEqual([{ state: 'c', payload: again.text }]);
    expect(await counts(tenant)).toEqual({ orders: 1, records: 1 });
  });

  it('leaves nothing when its backend is terminated mid-statement, and the call then creates the order once', async () => {
    const tenant = randomUUID();
    const operation = createOrderOperation(tenant);
    // An uncommitted record of the key makes the statement wait on the unique index, where it is terminated.
    const blocker = await pool().connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO ${RECORDS} VALUES ($1, 'crash', 'c', 1, 'blocker', 'x', NULL, now() + interval '1 h', 1, '{}')`,
        [operation],
      );
      const pending = create('crash', { amount: 400, currency: 'EUR' }, tenant).then((r) => r);
      let waiting: number | undefined;
      for (let i = 0; i < 200 && waiting === undefined; i += 1) {
        const { rows } = await pool().query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%idempotency_record AS (INSERT%'`,
        );
        waiting = rows[0]?.pid;
        if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(waiting).toBeDefined();
      await pool().query('SELECT pg_terminate_backend($1)', [waiting]);
      // The terminated statement wrote neither row (the blocker's own uncommitted row aside).
      expect(await counts(tenant)).toEqual({ orders: 0, records: 0 });
      await blocker.query('ROLLBACK');
      const answer = await pending;
      expect([answer.status, answer.headers['idempotent-replayed']]).toEqual([201, undefined]);
      expect(await counts(tenant)).toEqual({ orders: 1, records: 1 });
    } finally {
      blocker.release();
    }
  });
});

describe('IDEMPOTENCY_ENABLED=false (the benchmark switch): the library off switch, no record read or written', () => {
  const payments = new FakePayments();
  const world = useOrdersWorld(payments, { IDEMPOTENCY_ENABLED: 'false' });

  it('creates an order for every call of a key, and applies a Charge once by its primary key alone', async () => {
    const tenant = randomUUID();
    const body = { amount: 1_000, currency: 'EUR' };
    const first = await postOrder(world().app, tenant, 'unprotected', body);
    const statements = await statementsWith(/^(orders:|idem:)/, () =>
      postOrder(world().app, tenant, 'unprotected', body),
    );
    // Off: the order's INSERT alone, one statement, no record read or written.
    expect(statements).toEqual([{ label: 'orders:create:claimed', inTransaction: false }]);
    const orders = await world().pool.query('SELECT id FROM orders WHERE tenant_id = $1', [tenant]);
    expect(orders.rows).toHaveLength(2);

    const pay = () =>
      request(world().app.getHttpServer())
        .post(`/v1/orders/${first.body.id}/payments`)
        .set('x-tenant-id', tenant)
        .set(TEST_INTERNAL_AUTHORIZATION)
        .set('Idempotency-Key', 'unprotected-payment')
        .send({ amount: 400, currency: 'EUR' });
    expect((await pay()).status).toBe(201);
    expect((await pay()).headers['idempotent-replayed']).toBe('true');
    const paid = await world().pool.query('SELECT paid_amount, reserved_amount FROM orders WHERE id = $1', [
      first.body.id,
    ]);
    expect(paid.rows).toEqual([{ paid_amount: '400', reserved_amount: '0' }]);
    const records = await world().pool.query(`SELECT count(*)::int AS n FROM ${RECORDS}`);
    expect(records.rows).toEqual([{ n: 0 }]);
  });
});
