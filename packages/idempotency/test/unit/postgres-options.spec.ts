import { describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { IdempotencyErrorCode } from '../../src/index.js';
import { POSTGRES_SCHEMA_VERSION, PostgresIdempotencyStore, schemaSql } from '../../src/postgres/index.js';
import { storeErrorOf } from '../../src/postgres/sql-errors.js';

// A pool that fails the test if anything reaches it: options are refused before any connection is taken.
const untouchable = new Proxy({} as pg.Pool, {
  get: (_, property) => {
    throw new Error(`the pool was touched (${String(property)})`);
  },
});

describe('PostgresIdempotencyStore options', () => {
  it.each([
    ['an upper-case table', { table: 'Records' }],
    ['a quoted identifier', { table: 'records"; DROP TABLE orders; --' }],
    ['three name parts', { table: 'a.b.c' }],
    ['a name too long for its NOTIFY channel', { table: `t${'x'.repeat(55)}` }],
    ['commandTimeoutMs 0', { commandTimeoutMs: 0 }],
    ['a fractional commandTimeoutMs', { commandTimeoutMs: 1.5 }],
    ['a negative sweepIntervalMs', { sweepIntervalMs: -1 }],
    ['sweepBatchSize 0', { sweepBatchSize: 0 }],
  ])('refuses %s with IDEMPOTENCY_INVALID_OPTIONS, touching nothing', (_, options) => {
    expect(() => new PostgresIdempotencyStore(untouchable, options)).toThrow(
      expect.objectContaining({ code: IdempotencyErrorCode.InvalidOptions }),
    );
  });

  it('accepts a schema-qualified table', () => {
    expect(new PostgresIdempotencyStore(untouchable, { table: 'billing.idempotency_records' }).table).toBe(
      'billing.idempotency_records',
    );
  });
});

describe('schemaSql: the versioned DDL', () => {
  it('gives every version from 0, each step ending with its version recorded, the index build alone outside', () => {
    const statements = schemaSql({ table: 'billing.records' });
    const recorded = statements.filter((s) => s.sql.startsWith('INSERT INTO "billing"."records__schema"'));
    expect(recorded.map((s) => s.version)).toEqual([1, 2]);
    expect(statements.filter((s) => s.outsideTransaction)).toEqual([
      {
        version: 1,
        sql: 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "billing__records__expires_at" ON "billing"."records" (expires_at)',
        outsideTransaction: true,
        index: '"billing"."billing__records__expires_at"',
      },
    ]);
    expect(statements.map((s) => s.version)).toEqual([...statements.map((s) => s.version)].sort());
    expect(schemaSql({ from: 1 }).every((s) => s.version === 2)).toBe(true);
    expect(schemaSql({ from: POSTGRES_SCHEMA_VERSION })).toEqual([]);
  });

  it.each([
    ['a version beyond this library', { version: POSTGRES_SCHEMA_VERSION + 1 }],
    ['version 0', { version: 0 }],
    ['from after version', { from: 2, version: 1 }],
    ['a negative from', { from: -1 }],
    ['a fractional version', { version: 1.5 }],
    ['a table the store refuses', { table: 'Records' }],
  ])('refuses %s with IDEMPOTENCY_INVALID_OPTIONS', (_, options) => {
    expect(() => schemaSql(options)).toThrow(
      expect.objectContaining({ code: IdempotencyErrorCode.InvalidOptions }),
    );
  });

  it('refuses a migrate() waitMs out of range before touching the pool', async () => {
    const store = new PostgresIdempotencyStore(untouchable, { sweepIntervalMs: 0 });
    await expect(store.migrate({ waitMs: -1 })).rejects.toMatchObject({
      code: IdempotencyErrorCode.InvalidOptions,
    });
  });
});

describe('storeErrorOf: the one mapping of driver errors', () => {
  const id = { operation: 'op', key: 'k' };
  it.each([
    ['40001', IdempotencyErrorCode.TransactionConflict],
    ['40P01', IdempotencyErrorCode.TransactionConflict],
    ['55P03', IdempotencyErrorCode.StoreUnavailable],
    ['57014', IdempotencyErrorCode.StoreUnavailable],
    ['ECONNREFUSED', IdempotencyErrorCode.StoreUnavailable],
  ])('SQLSTATE/code %s -> %s, with the cause kept', (code, expected) => {
    const cause = Object.assign(new Error('driver says no'), { code });
    expect(storeErrorOf(cause, id)).toMatchObject({ code: expected, operation: 'op', key: 'k', cause });
  });
});
