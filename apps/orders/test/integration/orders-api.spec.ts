import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type pg from 'pg';
import request from 'supertest';
import { FakePayments, postOrder, useOrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';
const OTHER_TENANT = 'b0000000-0000-4000-8000-00000000000b';

describe('orders API on a real Postgres: created once per key, read and listed per tenant', () => {
  const world = useOrdersWorld(new FakePayments());
  const app = (): INestApplication => world().app;
  const pool = (): pg.Pool => world().pool;

  const create = (key: string | undefined, body: unknown, tenant = TENANT) =>
    postOrder(app(), tenant, key, body);
  const get = (path: string, tenant = TENANT) =>
    request(app().getHttpServer()).get(path).set('x-tenant-id', tenant).set(TEST_INTERNAL_AUTHORIZATION);
  const rowsOf = async (tenant: string) =>
    Number((await pool().query('SELECT count(*) FROM orders WHERE tenant_id = $1', [tenant])).rows[0].count);

  it('creates an order (201), and replays the same bytes with Idempotent-Replayed for the same key: one row', async () => {
    const tenant = randomUUID();
    const first = await create('order-1', { amount: 2500, currency: 'EUR' }, tenant);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      status: 'awaiting_payment',
      amount: 2500,
      currency: 'EUR',
      paidAmount: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await create('order-1', { amount: 2500, currency: 'EUR' }, tenant);
    expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([
      201,
      first.text,
      'true',
    ]);
    expect(await rowsOf(tenant)).toBe(1);
  });

  it('runs concurrent requests with one key once: one row, every answer the same order', async () => {
    const tenant = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => create('order-race', { amount: 100, currency: 'USD' }, tenant)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await rowsOf(tenant)).toBe(1);
  });

  it('refuses the same key with another body (422 idempotency_key_reused) and writes nothing', async () => {
    const tenant = randomUUID();
    await create('order-2', { amount: 2500, currency: 'EUR' }, tenant);
    const reused = await create('order-2', { amount: 2600, currency: 'EUR' }, tenant);
    expect([reused.status, reused.body.code, reused.headers['content-type']]).toEqual([
      422,
      'idempotency_key_reused',
      expect.stringContaining('application/problem+json'),
    ]);
    expect(await rowsOf(tenant)).toBe(1);
  });

  it('scopes keys by tenant: the same key of two tenants makes two orders', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const first = await create('shared-key', { amount: 1, currency: 'EUR' }, a);
    const second = await create('shared-key', { amount: 1, currency: 'EUR' }, b);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it.each([
    ['no key', undefined, { amount: 1, currency: 'EUR' }, 400, 'idempotency_key_missing'],
    ['a malformed key', 'order:1', { amount: 1, currency: 'EUR' }, 400, 'idempotency_key_invalid'],
    ['amount 0', 'k-0', { amount: 0, currency: 'EUR' }, 400, 'validation_failed'],
    ['amount over 99 999 999', 'k-big', { amount: 100_000_000, currency: 'EUR' }, 400, 'validation_failed'],
    ['a fractional amount', 'k-frac', { amount: 1.5, currency: 'EUR' }, 400, 'validation_failed'],
    ['an unknown currency', 'k-cur', { amount: 1, currency: 'ABC' }, 400, 'validation_failed'],
    ['an extra field', 'k-extra', { amount: 1, currency: 'EUR', paidAmount: 1 }, 400, 'validation_failed'],
  ])('refuses %s and writes nothing', async (_label, key, body, status, code) => {
    const tenant = randomUUID();
    const res = await create(key, body, tenant);
    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(await rowsOf(tenant)).toBe(0);
  });

  it('reads an order with its payments and invoices; another tenant gets the same 404 as an unknown id', async () => {
    const created = await create(`read-${randomUUID()}`, { amount: 700, currency: 'GBP' });
    const read = await get(`/v1/orders/${created.body.id}`);
    expect([read.status, read.body]).toEqual([200, { ...created.body, payments: [], invoices: [] }]);

    const foreign = await get(`/v1/orders/${created.body.id}`, OTHER_TENANT);
    const unknown = await get(`/v1/orders/${randomUUID()}`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'order_not_found']);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'order_not_found']);
    expect(foreign.body.title).toBe(unknown.body.title);
  });

  it('lists the tenant orders newest first, page by page, with a cursor', async () => {
    const tenant = randomUUID();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++)
      ids.push((await create(`list-${i}`, { amount: i, currency: 'EUR' }, tenant)).body.id);
    await create('list-other', { amount: 1, currency: 'EUR' }, randomUUID());

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/v1/orders?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`, tenant);
      expect(res.status).toBe(200);
      seen.push(...res.body.orders.map((o: { id: string }) => o.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=101', 'limit=101'],
    ['a forged cursor', `cursor=${Buffer.from('not a cursor').toString('base64url')}`],
    ['an unknown parameter', 'offset=3'],
  ])('refuses %s with 400 validation_failed', async (_label, query) => {
    const res = await get(`/v1/orders?${query}`);
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
  });
});
