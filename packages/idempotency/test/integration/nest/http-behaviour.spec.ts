import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startRedis } from '@retry-safe/testing';
import type { IdempotencyStore } from '../../../src/index.js';
import { PostgresIdempotencyStore } from '../../../src/postgres/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { freshTable, suitePostgres } from '../postgres-support.js';
import { suiteRedis } from '../support.js';
import {
  AccountsController,
  BIG_TEXT,
  ChargesController,
  Effects,
  FILE_BYTES,
  FakeAuthGuard,
} from './charges.controller.js';
import { CapturedLogs, PLATFORMS, startNestApp } from './nest-apps.js';

const redis = suiteRedis(() => startRedis());
const postgres = suitePostgres();

/** A store of each kind, isolated by key prefix or table, and how long a record has left. */
const STORES = {
  redis: async () => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-http:${randomUUID()}:` });
    return {
      store,
      remainingTtlMs: (operation: string, key: string) =>
        redis.client.pttl(store.recordKey({ operation, key })),
    };
  },
  postgres: async () => {
    const store = new PostgresIdempotencyStore(postgres.pool, { table: freshTable() });
    await store.migrate();
    const remainingTtlMs = async (operation: string, key: string) => {
      const { rows } = await postgres.pool.query<{ ms: string }>(
        `SELECT floor(extract(epoch from expires_at - clock_timestamp()) * 1000) AS ms FROM ${store.table}
          WHERE operation = $1 AND key = $2`,
        [operation, key],
      );
      return Number(rows[0]?.ms ?? -2);
    };
    return { store, remainingTtlMs };
  },
} satisfies Record<
  string,
  () => Promise<{ store: IdempotencyStore; remainingTtlMs(operation: string, key: string): Promise<number> }>
>;

const CASES = PLATFORMS.flatMap((platform) =>
  (Object.keys(STORES) as (keyof typeof STORES)[]).map((store) => [platform, store] as const),
);

/** The problem+json body of an idempotency error, whole. */
const problem = (status: number, code: string, title: string, detail: string, instance: string) => ({
  type: 'about:blank',
  title,
  status,
  detail,
  code,
  instance,
});

describe.each(CASES)('@Idempotent() over real HTTP on %s, %s store', (platform, storeKind) => {
  let app: INestApplication;
  let effects: Effects;
  let remainingTtlMs: (operation: string, key: string) => Promise<number>;
  const logs = new CapturedLogs();
  beforeAll(async () => {
    const made = await STORES[storeKind]();
    remainingTtlMs = made.remainingTtlMs;
    app = await startNestApp(platform, { store: made.store }, [ChargesController, AccountsController], {
      providers: [Effects, FakeAuthGuard],
      logger: logs,
    });
    effects = app.get(Effects);
  });
  afterAll(async () => {
    await app.close();
  });
  const post = (path: string, key: string | undefined, body: object = {}, headers: object = {}) => {
    const req = request(app.getHttpServer())
      .post(path)
      .set(headers as Record<string, string>);
    return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
  };
  const charges = () => effects.charges;

  it('201, then the same status, body and Location with Idempotent-Replayed: true; one charge', async () => {
    const before = charges();
    const first = await post('/charges', 'k-replay', { amount: 100 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.headers['x-not-replayed']).toBe('fresh');
    const again = await post('/charges', '"k-replay"', { amount: 100 });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ id: first.body.id, amount: 100 });
    expect(again.headers['location']).toBe(`/charges/${first.body.id}`);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Only the allow-listed headers come back.
    expect(again.headers['x-not-replayed']).toBeUndefined();
    expect(charges() - before).toBe(1);
  });

  it('the same key with another body: 422 idempotency_key_reused, nothing charged', async () => {
    await post('/charges', 'k-reuse', { amount: 100 });
    const before = charges();
    const reused = await post('/charges', 'k-reuse', { amount: 999 });
    expect(reused.status).toBe(422);
    expect(reused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(reused.body).toEqual(
      problem(
        422,
        'idempotency_key_reused',
        'Idempotency-Key reused with different parameters',
        'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
        '/charges',
      ),
    );
    expect(charges()).toBe(before);
  });

  it('no key: 400 idempotency_key_missing; a malformed key: 400 idempotency_key_invalid; nothing charged', async () => {
    const before = charges();
    const missing = await post('/charges', undefined, { amount: 1 });
    expect(missing.status).toBe(400);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body).toEqual(
      problem(
        400,
        'idempotency_key_missing',
        'Idempotency-Key required',
        'The Idempotency-Key header is required',
        '/charges',
      ),
    );
    const invalid = await post('/charges', '"unterminated', { amount: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ status: 400, code: 'idempotency_key_invalid' });
    expect(charges()).toBe(before);
  });

  it('in flight: 409 request_in_progress with Retry-After: 1, and one charge', async () => {
    let release: () => void = () => {};
    effects.hold = new Promise((resolve) => (release = resolve));
    const before = charges();
    const first = post('/charges', 'k-flight', { amount: 5 }).then((r) => r);
    while (charges() === before) await new Promise((r) => setTimeout(r, 5));
    const second = await post('/charges', 'k-flight', { amount: 5 });
    release();
    effects.hold = undefined;
    expect(second.status).toBe(409);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.body).toMatchObject({ status: 409, code: 'request_in_progress' });
    expect((await first).status).toBe(201);
    expect(charges() - before).toBe(1);
  });

  it('the scope separates callers, whatever its characters; a key error is only ever about the key', async () => {
    const before = charges();
    const tenants = ['ta', 'tb', 'acme:eu/west', 'ümlaut tenant', 'x'.repeat(90)];
    const firsts = await Promise.all(
      tenants.map((t) => post('/charges', 'k-scope', { amount: 7 }, { 'X-Tenant': t })),
    );
    expect(firsts.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const again = await post('/charges', 'k-scope', { amount: 7 }, { 'X-Tenant': 'acme:eu/west' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(firsts[2]!.body);
    expect(charges() - before).toBe(5);
  });

  it('a handler that throws stores nothing: the retry runs it again', async () => {
    const before = effects.failures;
    const failed = await post('/charges', 'k-throw', { amount: -1 });
    expect(failed.status).toBe(500);
    const retried = await post('/charges', 'k-throw', { amount: -1 });
    expect(retried.status).toBe(500);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(effects.failures - before).toBe(2);
  });

  it('a custom fingerprint and @HttpCode(202): replayed as 202; a field outside the fingerprint is no reuse', async () => {
    const before = charges();
    const first = await post('/refunds', 'k-refund', { amount: 3, note: 'a' });
    const again = await post('/refunds', 'k-refund', { amount: 3, note: 'b' });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual({ refunded: 3 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('a fingerprint function that returns null compares nothing: another body with the key is a replay', async () => {
    const before = charges();
    const first = await post('/notes', 'k-note', { text: 'a' });
    const again = await post('/notes', 'k-note', { text: 'b' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual({ noted: 'a' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('204 is replayed as 204 with no body', async () => {
    const before = charges();
    const first = await post('/voids', 'k-void');
    const again = await post('/voids', 'k-void');
    expect([first.status, again.status]).toEqual([204, 204]);
    expect([first.text, again.text]).toEqual(['', '']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('a 1 MB JSON body is replayed byte for byte', async () => {
    const before = charges();
    const first = await post('/exports', 'k-export');
    const again = await post('/exports', 'k-export');
    expect(first.status).toBe(201);
    expect(first.text.length).toBeGreaterThan(1_000_000);
    expect(again.text).toBe(first.text);
    expect(again.body).toEqual({ text: BIG_TEXT });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('a StreamableFile is replayed as its bytes with its content type and disposition, never as JSON', async () => {
    const before = charges();
    const asBytes = (req: request.Test) =>
      req.buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    const first = await asBytes(post('/receipts', 'k-receipt'));
    const again = await asBytes(post('/receipts', 'k-receipt'));
    for (const res of [first, again]) {
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe('attachment; filename="receipt.pdf"');
      expect(Buffer.compare(res.body as Buffer, FILE_BYTES)).toBe(0);
    }
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('a stream over maxStoredBytes reaches its caller whole; a retry gets 500 and never runs it again', async () => {
    const before = charges();
    const first = await post('/statements', 'k-statement')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(first.status).toBe(201);
    expect(Buffer.compare(first.body as Buffer, FILE_BYTES)).toBe(0);
    const again = await post('/statements', 'k-statement');
    expect(again.status).toBe(500);
    expect(again.body).toMatchObject({ status: 500, code: 'idempotency_result_unencodable' });
    expect(charges() - before).toBe(1);
  });

  it('storeIf(status < 500): a 404 is final, replayed as the same 404', async () => {
    const before = charges();
    const first = await post('/lookups', 'k-lookup', { found: false });
    const again = await post('/lookups', 'k-lookup', { found: false });
    expect([first.status, again.status]).toEqual([404, 404]);
    expect(again.body).toEqual(first.body);
    expect(again.body).toEqual({ statusCode: 404, message: 'no such charge', error: 'Not Found' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(charges() - before).toBe(1);
  });

  it('a scope that returns undefined is a 500 naming the route, never a shared bucket', async () => {
    const before = charges();
    const res = await post('/misconfigured', 'k-misconfigured');
    expect(res.status).toBe(500);
    expect(res.body).toEqual(
      problem(
        500,
        'idempotency_route_misconfigured',
        'Idempotent route misconfigured',
        'The server is misconfigured: @Idempotent() on ChargesController.misconfigured: scope returned undefined; ' +
          'it must return a non-empty string or a finite number (or set scope: false for a route every caller shares)',
        '/misconfigured',
      ),
    );
    expect(charges()).toBe(before);
    expect(logs.of('error').filter((line) => line.includes('ChargesController.misconfigured'))).toHaveLength(
      1,
    );
  });

  it('on a class: its POST routes are idempotent with the class options, its GET is not; the method wins', async () => {
    const before = charges();
    expect((await request(app.getHttpServer()).get('/accounts')).status).toBe(200);
    expect((await post('/accounts', undefined)).status).toBe(400);
    const first = await post('/accounts', 'k-class');
    const again = await post('/accounts', 'k-class');
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-class']).toBe(first.headers['x-class']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    await post('/accounts/shared', 'k-class');
    expect(charges() - before).toBe(2);
    // ttl '90s' from the class; 5 000 ms from the method over it.
    const classTtl = await remainingTtlMs('AccountsController.open', 'k-class');
    const methodTtl = await remainingTtlMs('AccountsController.shared', 'k-class');
    expect(classTtl).toBeGreaterThan(80_000);
    expect(classTtl).toBeLessThanOrEqual(90_000);
    expect(methodTtl).toBeGreaterThan(0);
    expect(methodTtl).toBeLessThanOrEqual(5_000);
  });

  it('an unscoped route reached by a signed-in user warns once; scope: false stays silent', async () => {
    const warnings = () => logs.of('warn').filter((line) => line.includes('has no scope'));
    expect(warnings()).toHaveLength(0);
    await post('/accounts', 'k-user-1', {}, { 'X-User': 'u1' });
    await post('/accounts', 'k-user-2', {}, { 'X-User': 'u2' });
    await post('/accounts/shared', 'k-user-3', {}, { 'X-User': 'u1' });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('AccountsController.open');
  });

  it('a body nested 4 000 deep is fingerprinted like any other: 201, then replayed', async () => {
    let deep: unknown = { amount: 1 };
    for (let i = 0; i < 4_000; i++) deep = { d: deep };
    const before = charges();
    const first = await post('/refunds', 'k-deep', { amount: 4, deep });
    const again = await post('/refunds', 'k-deep', { amount: 4, deep });
    expect([first.status, again.status]).toEqual([202, 202]);
    const deepVoid = await post('/voids', 'k-deep-default', { deep });
    expect(deepVoid.status).toBe(204);
    expect(charges() - before).toBe(2);
  });
});
