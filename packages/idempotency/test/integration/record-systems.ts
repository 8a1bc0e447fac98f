import type { Cluster, Redis } from 'ioredis';
import type { ClaimResult, IdempotencyStore, RecordId, SqlTransaction } from '../../src/index.js';
import { RECORD_FORMAT_VERSION } from '../../src/redis/index.js';
import { claimResultOf } from '../../src/store-replies.js';
import { scripts } from '../../src/redis/scripts.js';
import type { ModelCall, ModelRecord, ModelTimes, Observed } from '../../model/reference.js';
import type { StoreKind } from '../../model/transitions.js';

/**
 * How the table tests and the property tests reach one real store: its calls in the table's words, its record
 * written and read as the store keeps it, and its clock. Time is in the model's units of `unitMs`: long enough
 * that the tests' own time (a few ms per call, well under a second on a loaded machine) never crosses a deadline.
 * The clock "advances" by moving the record's deadlines (lease and expiry) nearer by the same amount, which is
 * what every script and SQL function sees of time passing: each compares a deadline with the store's own clock.
 */
export interface RecordSystem {
  readonly kind: StoreKind;
  /** Its calls run in one caller's transaction, which holds the rows it wrote (see ReferenceModel). */
  readonly heldByTransaction?: boolean;
  readonly times: ModelTimes;
  readonly unitMs: number;
  /** Runs one call; `lose`: its first reply is lost, and the call runs again (the Redis client resends it). */
  call(id: RecordId, c: ModelCall, lose?: boolean): Promise<Observed>;
  /** Replaces the record with `record` (undefined: none), its deadlines counted from the store's now. */
  write(id: RecordId, record: ModelRecord | undefined): Promise<void>;
  read(id: RecordId): Promise<RecordView | undefined>;
  /** Every deadline of the record comes `units` nearer (an expired Redis record is gone, as Redis would drop it). */
  advance(id: RecordId, units: number): Promise<void>;
  /** PostgreSQL: the store's sweep of expired rows. */
  sweep?(): Promise<void>;
  remove(id: RecordId): Promise<void>;
}

/** A record as read from a store, in the model's terms (deadlines in whole units from now, rounded up). */
export interface RecordView {
  readonly state: ModelRecord['state'];
  readonly owner: string | null;
  readonly fence: number;
  readonly fingerprint: string;
  readonly payload: string | null;
  readonly leaseUnits: number | null;
  readonly expiryUnits: number;
}

/** The model's view of its own record, to compare with a store's {@link RecordView}. */
export function viewOf(record: ModelRecord, now: number, kind: StoreKind): RecordView {
  return {
    state: record.state,
    owner: record.owner,
    fence: record.fence,
    // Redis keeps no fingerprint in a released record (nothing reads it); PostgreSQL leaves the column as it was.
    fingerprint: record.state === 'released' && kind === 'redis' ? '' : record.fingerprint,
    payload: record.payload,
    leaseUnits: record.leaseUntil === null ? null : record.leaseUntil - now,
    expiryUnits: record.expiresAt - now,
  };
}

export function observedOf(result: ClaimResult | boolean, unitMs: number): Observed {
  if (typeof result === 'boolean') return { reply: result ? 'true' : 'false' };
  switch (result.status) {
    case 'acquired':
      return { reply: 'acquired', fence: result.fencingToken };
    case 'completed':
      return result.payload === null
        ? { reply: 'replayWithoutResult', fence: result.fencingToken }
        : { reply: 'replay', fence: result.fencingToken, payload: result.payload };
    case 'in_progress':
      return { reply: 'inProgress', retryAfterUnits: result.retryAfterMs / unitMs };
    case 'mismatch':
      return {
        reply: result.state === 'pending' ? 'mismatchPending' : 'mismatchCompleted',
        storedFingerprint: result.storedFingerprint,
      };
    case 'corrupt':
      throw new Error(`the store read its own record as corrupt: ${result.reason}`);
  }
}

/** One call on `store`, as the coordinator makes it (the lifetimes in ms from the model's units). */
export async function callStore(
  store: IdempotencyStore,
  id: RecordId,
  c: ModelCall,
  times: ModelTimes,
  unitMs: number,
): Promise<ClaimResult | boolean> {
  const { owner, fingerprint } = c;
  const ms = (units: number) => units * unitMs;
  switch (c.call) {
    case 'claim':
      return store.claim({ ...id, owner, fingerprint, leaseMs: ms(times.lease), retainMs: ms(times.retain) });
    case 'complete':
    case 'completeWithoutResult': {
      const payload = c.call === 'complete' ? (c.payload ?? '') : null;
      return store.complete({ ...id, owner, payload, ttlMs: ms(times.ttl) });
    }
    case 'renew':
      return store.renew({ ...id, owner, leaseMs: ms(times.lease) });
    case 'release':
      return store.release({ ...id, owner });
    case 'storeIfAbsent':
      return store.storeIfAbsent({ ...id, fingerprint, payload: c.payload ?? '', ttlMs: ms(times.ttl) });
  }
}

const STATE_LETTERS = { pending: 'p', completed: 'c', completedWithoutResult: 'e', released: 'r' } as const;
const STATES = Object.fromEntries(Object.entries(STATE_LETTERS).map(([k, v]) => [v, k])) as Record<
  string,
  ModelRecord['state']
>;

// Test-only: time passes for one record. Its lease deadline (ms on the Redis clock) and its TTL come nearer by
// ARGV[1] ms; a record whose TTL runs out is deleted, as Redis would expire it.
const ADVANCE_LUA = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local shift = tonumber(ARGV[1])
local left = redis.call('PTTL', KEYS[1]) - shift
if left <= 0 then redis.call('DEL', KEYS[1]) return 1 end
local head, lease, rest = string.match(raw, '^(%d+|%a|%d+|)(%d*)(|.*)$')
if lease ~= '' then lease = string.format('%.0f', tonumber(lease) - shift) end
redis.call('SET', KEYS[1], head .. lease .. rest, 'PX', left)
return 1`;

async function redisNowMs(client: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * The Redis store (standalone or Cluster). `store` may sit behind a proxy that loses replies (`lose`); `direct`
 * reaches the same Redis for the test's own reads and writes.
 */
export function redisSystem(options: {
  store: IdempotencyStore & { recordKey(id: RecordId): string };
  direct: Redis | Cluster;
  /** Runs `call` with its reply lost on the wire, so that ioredis resends it; default: runs it twice. */
  lose?: (key: string, call: () => Promise<ClaimResult | boolean>) => Promise<ClaimResult | boolean>;
  times: ModelTimes;
  unitMs: number;
}): RecordSystem {
  const { store, direct: client, times, unitMs } = options;
  const key = (id: RecordId) => store.recordKey(id);
  const run = async (id: RecordId, c: ModelCall): Promise<ClaimResult | boolean> => {
    if (c.call !== 'claim' || c.abandoned === undefined) return callStore(store, id, c, times, unitMs);
    // The store passes an abandoned owner only after one of its own claims timed out: the script directly.
    const args = [c.owner, c.fingerprint, times.lease * unitMs, times.retain * unitMs, RECORD_FORMAT_VERSION];
    return claimResultOf(await client.eval(scripts.claim.source, 1, key(id), ...args, c.abandoned));
  };
  return {
    kind: 'redis',
    times,
    unitMs,
    call: async (id, c, lose = false) => {
      const attempt = () => run(id, c);
      const lost = options.lose ?? ((_key, call) => twice(call));
      return observedOf(await (lose ? lost(key(id), attempt) : attempt()), unitMs);
    },
    write: async (id, r) => {
      await client.del(key(id));
      if (r)
        await client.set(
          key(id),
          redisRecordOf(r, await redisNowMs(client), unitMs),
          'PX',
          r.expiresAt * unitMs,
        );
    },
    read: async (id) => {
      const [raw, pttl, now] = [
        await client.get(key(id)),
        await client.pttl(key(id)),
        await redisNowMs(client),
      ];
      return raw === null ? undefined : redisViewOf(raw, pttl, now, unitMs);
    },
    advance: async (id, units) => void (await client.eval(ADVANCE_LUA, 1, key(id), units * unitMs)),
    remove: async (id) => void (await client.del(key(id))),
  };
}

/** A record as the Redis scripts write it (see includes/read-record.lua), its lease on the Redis clock `now`. */
function redisRecordOf(r: ModelRecord, now: number, unitMs: number): string {
  const lease = r.leaseUntil === null ? '' : String(now + r.leaseUntil * unitMs);
  const fingerprint = r.state === 'released' ? '' : r.fingerprint;
  const header = `${RECORD_FORMAT_VERSION}|${STATE_LETTERS[r.state]}|${r.fence}|${lease}|${r.owner ?? ''}`;
  return `${header}|${Buffer.byteLength(fingerprint)}|${fingerprint}${r.payload ?? ''}`;
}

function redisViewOf(raw: string, pttl: number, now: number, unitMs: number): RecordView {
  const match = /^(\d+)\|([pcer])\|(\d+)\|(\d*)\|([^|]*)\|(\d+)\|/.exec(raw);
  if (!match) throw new Error(`unreadable record ${raw}`);
  const [head, , letter, fence, lease, owner, length] = match as unknown as string[];
  const at = head!.length;
  const state = STATES[letter!]!;
  return {
    state,
    owner: owner === '' ? null : owner!,
    fence: Number(fence),
    fingerprint: raw.slice(at, at + Number(length)),
    payload: state === 'completed' ? raw.slice(at + Number(length)) : null,
    leaseUnits: lease === '' ? null : Math.ceil((Number(lease) - now) / unitMs),
    expiryUnits: Math.ceil(pttl / unitMs),
  };
}

async function twice<T>(call: () => Promise<T>): Promise<T> {
  await call();
  return call();
}

/** Where the PostgreSQL system's own statements go: the pool, or the caller's open transaction. */
export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The PostgreSQL store, standalone (`store` is the store, `db` its pool) or on a caller's open transaction
 * (`store` is `inTransaction(tx)`, `db` the transaction: the test's own reads and writes join it).
 */
export function postgresSystem(options: {
  store: IdempotencyStore;
  db: SqlQueryable & SqlTransaction;
  table: string;
  sweep?: () => Promise<unknown>;
  times: ModelTimes;
  unitMs: number;
  /** `store` is `inTransaction(db)`: the transaction holds the rows it wrote. */
  inTransaction?: boolean;
}): RecordSystem {
  const { store, db, table, times, unitMs } = options;
  const where = 'WHERE operation = $1 AND key = $2';
  return {
    kind: 'postgres',
    heldByTransaction: options.inTransaction === true,
    times,
    unitMs,
    // PostgreSQL's client never resends: a lost reply is a failed call the caller makes again, same owner.
    call: async (id, c, lose = false) => {
      const attempt = () => callStore(store, id, c, times, unitMs);
      return observedOf(await (lose ? twice(attempt) : attempt()), unitMs);
    },
    write: async (id, r) => {
      await db.query(`DELETE FROM ${table} ${where}`, [id.operation, id.key]);
      if (!r) return;
      await db.query(
        `INSERT INTO ${table} (operation, key, state, fencing_token, owner, fingerprint, lease_until, expires_at,
           version, payload)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + $7 * interval '1 ms',
           clock_timestamp() + $8 * interval '1 ms', 1, $9)`,
        [
          id.operation,
          id.key,
          STATE_LETTERS[r.state],
          r.fence,
          r.owner,
          r.fingerprint,
          r.leaseUntil === null ? null : r.leaseUntil * unitMs,
          r.expiresAt * unitMs,
          r.payload,
        ],
      );
    },
    read: async (id) => {
      const { rows } = await db.query(
        `SELECT state, fencing_token::text AS fence, owner, fingerprint, payload,
           extract(epoch from lease_until - clock_timestamp()) * 1000 AS lease_ms,
           extract(epoch from expires_at - clock_timestamp()) * 1000 AS expiry_ms
         FROM ${table} ${where}`,
        [id.operation, id.key],
      );
      const row = rows[0] as Record<string, string | null> | undefined;
      return row && postgresViewOf(row, unitMs);
    },
    advance: async (id, units) => {
      await db.query(
        `UPDATE ${table} SET lease_until = lease_until - $3 * interval '1 ms',
           expires_at = expires_at - $3 * interval '1 ms' ${where}`,
        [id.operation, id.key, units * unitMs],
      );
    },
    ...(options.sweep ? { sweep: async () => void (await options.sweep!()) } : {}),
    remove: async (id) => void (await db.query(`DELETE FROM ${table} ${where}`, [id.operation, id.key])),
  };
}

function postgresViewOf(row: Record<string, string | null>, unitMs: number): RecordView {
  return {
    state: STATES[row['state']!]!,
    owner: row['owner'] ?? null,
    fence: Number(row['fence']),
    fingerprint: row['fingerprint'] ?? '',
    payload: row['payload'] ?? null,
    leaseUnits: row['lease_ms'] === null ? null : Math.ceil(Number(row['lease_ms']) / unitMs),
    expiryUnits: Math.ceil(Number(row['expiry_ms']) / unitMs),
  };
}
