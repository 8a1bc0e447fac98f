import { describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { IdempotencyErrorCode } from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
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
