import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startRedis } from '@retry-safe/testing';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import {
  callerCall,
  recordIn,
  ReferenceModel,
  type ModelRecord,
  type ModelTimes,
} from '../../model/reference.js';
import {
  CALLS,
  loadTransitions,
  situations,
  type CallKind,
  type Situation,
} from '../../model/transitions.js';
import { freshTable, suitePostgres } from './postgres-support.js';
import { postgresSystem, redisSystem, viewOf, type RecordSystem } from './record-systems.js';
import { suiteRedis } from './support.js';

// The table (model/transitions.json) against the real scripts and SQL functions: every call, in every situation
// the table knows, on a record written as each store keeps it; the answer and the record left behind are the row's.
// The same table generates the Promela model and is the property tests' oracle, so none of them can drift unseen.
const table = loadTransitions();
const UNIT_MS = 10_000;
const times: ModelTimes = { lease: 3, retain: 4, ttl: 4 };

const redis = suiteRedis(() => startRedis());
const postgres = suitePostgres();
let pgTable: string;
beforeAll(async () => {
  pgTable = freshTable();
  await new PostgresIdempotencyStore(postgres.pool, { table: pgTable }).migrate();
});

/** Every situation, and for PostgreSQL an absent record that is an expired row still holding its token. */
const EXPIRED_ROW: ModelRecord = {
  ...recordIn({ record: 'released', owner: 'other' }, times).record!,
  expiresAt: -1,
};
const cases = (kind: 'redis' | 'postgres') =>
  CALLS.flatMap((call) => [
    ...situations().map((s) => [call, JSON.stringify(s), s, undefined] as const),
    ...(kind === 'postgres' ? [[call, 'an expired row', { record: 'absent' }, EXPIRED_ROW] as const] : []),
  ]);

/** Writes the situation, makes the call, checks the answer and the record left against the table's row. */
async function check(
  system: RecordSystem,
  call: CallKind,
  s: Situation,
  expiredRow: ModelRecord | undefined,
) {
  const id = { operation: 'model.table', key: `k-${randomUUID()}` };
  const model = new ReferenceModel(system.kind, times, table);
  const { record, abandoned } = recordIn(s, times);
  const written = expiredRow ?? record;
  await system.write(id, written);
  model.record = written;
  model.maxGranted = written?.fence ?? 0;
  const c = callerCall(call, abandoned);
  const row = model.step(c, await system.call(id, c));
  const left = system.kind === 'redis' ? model.live() : model.record;
  expect({ row: row.id, record: await system.read(id) }).toEqual({
    row: row.id,
    record: left && viewOf(left, model.now, system.kind),
  });
  await system.remove(id);
}

describe('the Redis scripts answer as the table says', () => {
  let system: RecordSystem;
  beforeAll(() => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: `model:${randomUUID()}:` });
    system = redisSystem({ store, direct: redis.client, times, unitMs: UNIT_MS });
  });
  for (const [call, name, s, expiredRow] of cases('redis')) {
    it(`${call} finding ${name}`, () => check(system, call, s, expiredRow));
  }
});

describe.each([
  ['standalone', false],
  ['in a transaction', true],
] as const)('the PostgreSQL functions, %s, answer as the table says', (_mode, inTransaction) => {
  let client: pg.PoolClient;
  let system: RecordSystem;
  beforeAll(async () => {
    const store = new PostgresIdempotencyStore(postgres.pool, { table: pgTable, sweepIntervalMs: 0 });
    client = await postgres.pool.connect();
    if (inTransaction) await client.query('BEGIN');
    const bound = inTransaction ? store.inTransaction(client) : store;
    system = postgresSystem({ store: bound, db: client, table: pgTable, times, unitMs: UNIT_MS });
  });
  afterAll(async () => {
    if (inTransaction) await client.query('ROLLBACK');
    client.release();
  });
  for (const [call, name, s, expiredRow] of cases('postgres')) {
    it(`${call} finding ${name}`, () => check(system, call, s, expiredRow));
  }
});
