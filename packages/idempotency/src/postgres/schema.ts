import { hash } from 'node:crypto';
import { InvalidIdempotencyOptionsError } from '../errors.js';

/** Version of the row layout written by this code; a row with another version is reported corrupt. */
export const PG_RECORD_FORMAT_VERSION = 1;

// Lower-case SQL identifiers only, optionally schema-qualified: names are spliced into DDL, never user input.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

/** SQLSTATE the claim raises when a transactional call runs in autocommit (no open transaction). */
export const NOT_IN_TRANSACTION = 'RS001';

/** The transaction-local setting a transactional claim's first statement sets, and the claim checks. */
export const OPEN_TRANSACTION_MARK = 'retry_safe.open_transaction';

/** The statement that sets {@link OPEN_TRANSACTION_MARK} for the rest of the caller's transaction. */
export const MARK_OPEN_TRANSACTION_SQL = `SELECT set_config('${OPEN_TRANSACTION_MARK}', 'on', true)`;

/** The SQL names one store uses, all derived from its table name. */
export interface SchemaNames {
  /** `"schema"."table"` or `"table"`, quoted. */
  readonly table: string;
  /** `<table>__fence`, quoted: one row holding the highest fencing token ever swept. */
  readonly fence: string;
  /** The NOTIFY channel complete, release and store-if-absent announce on. */
  readonly channel: string;
  /** Quoted, schema-qualified name of one state-change function, e.g. `fn('claim')`. */
  fn(name: StateChange): string;
  /** Key of the transaction-level advisory lock that serialises `migrate()`. */
  readonly migrationLockKey: string;
  /** Unquoted table name, for catalog look-ups. */
  readonly bareTable: string;
}

/** The state changes, one SQL function each (as the Redis store has one Lua script each). */
export type StateChange =
  'claim' | 'complete' | 'renew' | 'release' | 'store_if_absent' | 'insert_completed' | 'sweep';

/**
 * `<schema>__<table>__events`, or, where that passes PostgreSQL's 63-byte identifiers (a schema-qualified name
 * near the 55-character limit), a hash of the table name: pg_notify refuses a longer channel.
 */
function channelOf(table: string): string {
  const channel = `${table.replace('.', '__')}__events`;
  return channel.length <= 63 ? channel : `idem_${hash('sha256', table, 'hex').slice(0, 16)}__events`;
}

/** Validates `table` (`name` or `schema.name`) and derives every name from it. */
export function schemaNames(table: string): SchemaNames {
  const parts = table.split('.');
  // The NOTIFY channel (`<table>__events`) must fit PostgreSQL's 63-byte identifiers.
  if (parts.length > 2 || table.length > 55 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new InvalidIdempotencyOptionsError(
      `table must be a lower-case SQL identifier (optionally schema-qualified, at most 55 characters in all), got ${JSON.stringify(table)}`,
    );
  }
  const bare = parts[parts.length - 1]!;
  const schema = parts.length === 2 ? `"${parts[0]}".` : '';
  return {
    table: `${schema}"${bare}"`,
    bareTable: table,
    fence: `${schema}"${bare}__fence"`,
    channel: channelOf(table),
    fn: (name) => `${schema}"${bare}__${name}"`,
    migrationLockKey: `retry-safe.idempotency:${table}`,
  };
}

/**
 * The fencing floor as a grant reads it. Under READ COMMITTED each statement sees the latest committed floor. A
 * REPEATABLE READ or SERIALIZABLE transaction would read the floor of its snapshot, older than a sweep that
 * committed since (which deleted the key's row and raised the floor past its token), and grant that token again;
 * so there the floor row is read `FOR SHARE`, which fails with 40001 (roll back and retry) when the floor changed
 * after the snapshot, and makes a later sweep wait for the transaction. `coalesce` evaluates the locking read only
 * when the plain one is skipped.
 */
function floorSql(n: SchemaNames): string {
  return `coalesce((SELECT f.floor FROM ${n.fence} f
      WHERE current_setting('transaction_isolation') = 'read committed'),
    (SELECT f.floor FROM ${n.fence} f FOR SHARE))`;
}

/**
 * The statement of `insert_completed`, on the given SQL expressions (operation, key, owner, fingerprint, payload,
 * ttl ms, format version): the function's body, and the caller's one-statement form
 * (`PostgresIdempotencyStore.insertCompletedSql`), written once. Answers `fencing_token`, or no row.
 */
export function insertCompletedSql(n: SchemaNames, args: readonly string[]): string {
  const [operation, key, owner, fingerprint, payload, ttlMs, version] = args;
  return `INSERT INTO ${n.table} AS t VALUES (${operation}, ${key},
      CASE WHEN ${payload} IS NULL THEN 'e' ELSE 'c' END, ${floorSql(n)} + 1, ${owner},
      ${fingerprint}, NULL, clock_timestamp() + ${ttlMs} * interval '1 ms', ${version}, ${payload})
    ON CONFLICT DO NOTHING RETURNING t.fencing_token`;
}

/**
 * DDL of one store, idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), run by `migrate()` under an advisory lock.
 *
 * Row layout (one row per operation + key; the primary key is the unique index concurrent claims meet on):
 *   state          'p' pending (owner holds a lease), 'c' completed (payload is the result), 'e' completed but
 *                  the value could not be encoded (no payload; never run again), 'r' released
 *   fencing_token  grows with every grant: max(previous, floor) + 1, where the floor (one row in
 *                  `<table>__fence`) is raised to the highest token the sweep ever deleted, in the sweep's own
 *                  transaction; so a key's tokens keep growing after its row expired and was swept
 *   owner          token of the attempt that was granted the row (kept after completion and release, so the
 *                  same owner's repeated complete/release are recognised)
 *   lease_until    end of the owner's lease (pending only), on the database clock: every process shares it
 *   expires_at     exact end of the row's life; from then on the row counts as absent, and the sweep deletes it
 *   version        row format; any other value is refused as corrupt rather than misread
 * No CHECK on state: a row this code cannot read must reach the claim and be refused as corrupt, not be hidden.
 */
export function schemaSql(n: SchemaNames): string {
  const floor = floorSql(n);
  // The CAS on every column a concurrent writer changes: the takeover below only succeeds on the version it read.
  const sameVersion = `t.fencing_token = v.fencing_token AND t.state = v.state
        AND t.lease_until IS NOT DISTINCT FROM v.lease_until AND t.expires_at = v.expires_at`;
  // The owner-checked transitions (complete, renew, release) act on the caller's own live pending row only.
  const ownedPending = `t.operation = p_operation AND t.key = p_key AND t.owner = p_owner AND t.state = 'p'
      AND t.expires_at > clock_timestamp()`;
  const notifyIfFound = `IF FOUND THEN
    PERFORM pg_notify('${n.channel}', p_operation || ':' || p_key);
    RETURN 1;
  END IF;`;
  // Run twice by the same owner (a retried call whose first answer was lost), a transition answers "done" again.
  const alreadyMovedBy = (state: string) => `RETURN (EXISTS (SELECT 1 FROM ${n.table} t
    WHERE t.operation = p_operation AND t.key = p_key AND t.owner = p_owner AND t.state = ${state}
      AND t.expires_at > clock_timestamp()))::int;`;
  const lockTimeout = `IF lock_timeout_ms IS NOT NULL THEN
      PERFORM set_config('lock_timeout', lock_timeout_ms || 'ms', true);
    END IF;`;
  return `
CREATE TABLE IF NOT EXISTS ${n.table} (
  operation text NOT NULL,
  key text NOT NULL,
  state text NOT NULL,
  fencing_token bigint NOT NULL,
  owner text,
  fingerprint text NOT NULL,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL,
  version smallint NOT NULL,
  payload text,
  PRIMARY KEY (operation, key)
);
CREATE TABLE IF NOT EXISTS ${n.fence} (id boolean PRIMARY KEY DEFAULT true CHECK (id), floor bigint NOT NULL);
INSERT INTO ${n.fence} (floor) VALUES (0) ON CONFLICT DO NOTHING;
CREATE INDEX IF NOT EXISTS "${n.bareTable.replace('.', '__')}__expires_at" ON ${n.table} (expires_at);

-- claim: reserve (operation, key) for owner, or report what is there. Returns (code, a, b) with the codes of the
-- Redis store's claim-1.lua, so one function maps both stores' answers:
--   1 acquired (a = fencing token)          2 completed (a = payload, b = fencing token)
--   3 in progress (a = ms until lease end)  4 other fingerprint (a = stored fingerprint, b = 'pending'|'completed')
--   5 corrupt (a = reason)                6 completed without a result (a = fencing token): the value could not
--                                           be encoded, and the action must not run again
-- Plain reads first (a replay takes no lock and writes nothing); writes are compare-and-set, and a lost race
-- loops to read again. An uncommitted claim of another transaction is invisible to the read, so the INSERT
-- waits on the primary key until that transaction commits (then the loop replays it) or rolls back (then we
-- insert). Expired rows count as absent but keep feeding the fencing counter.
CREATE OR REPLACE FUNCTION ${n.fn('claim')}(
  p_operation text, p_key text, p_owner text, p_fingerprint text, p_lease_ms bigint, p_retain_ms bigint,
  p_version smallint, lock_timeout_ms int, OUT code int, OUT a text, OUT b text)
LANGUAGE plpgsql AS $fn$
DECLARE
  v ${n.table}%ROWTYPE;
  now_ts timestamptz;
  granted bigint;
BEGIN
  ${lockTimeout}
  -- On a caller's transaction (no lock timeout of ours), prove there is one: the statement before this one set a
  -- transaction-local mark, which autocommit (a Pool, a Kysely instance, a client without BEGIN) has already
  -- reset. Refused here, before anything is written or the action runs.
  IF lock_timeout_ms IS NULL AND coalesce(current_setting('${OPEN_TRANSACTION_MARK}', true), '') <> 'on' THEN
    RAISE EXCEPTION 'coordinateInTransaction needs an open transaction (BEGIN first), got autocommit'
      USING ERRCODE = '${NOT_IN_TRANSACTION}';
  END IF;
  LOOP
    now_ts := clock_timestamp();
    SELECT * INTO v FROM ${n.table} t WHERE t.operation = p_operation AND t.key = p_key;
    IF NOT FOUND THEN
      INSERT INTO ${n.table} AS t VALUES (p_operation, p_key, 'p', ${floor} + 1, p_owner, p_fingerprint,
        now_ts + p_lease_ms * interval '1 ms', now_ts + p_retain_ms * interval '1 ms', p_version, NULL)
        ON CONFLICT DO NOTHING RETURNING t.fencing_token INTO granted;
      IF granted IS NOT NULL THEN code := 1; a := granted::text; RETURN; END IF;
      CONTINUE;
    END IF;
    IF v.version IS DISTINCT FROM p_version THEN
      code := 5; a := 'unknown record format version ' || v.version; RETURN;
    END IF;
    IF v.fencing_token < 0 OR v.fencing_token > 9007199254740991 THEN
      code := 5; a := 'fencing token out of range: ' || v.fencing_token; RETURN;
    END IF;
    IF v.expires_at > now_ts THEN
      -- The same owner claiming again (a retried call whose first answer was lost) still holds the key, lease or
      -- no lease: as claim-1.lua, it answers as its first run did. A lapsed lease is only taken over by others.
      IF v.state = 'p' AND v.owner = p_owner THEN code := 1; a := v.fencing_token::text; RETURN; END IF;
      IF v.state IN ('c', 'e') THEN
        IF v.fingerprint <> p_fingerprint THEN code := 4; a := v.fingerprint; b := 'completed'; RETURN; END IF;
        -- e: completed, but the value could not be encoded; the action must not run again.
        IF v.state = 'e' THEN code := 6; a := v.fencing_token::text; RETURN; END IF;
        IF v.payload IS NULL THEN code := 5; a := 'a completed record has no result'; RETURN; END IF;
        code := 2; a := v.payload; b := v.fencing_token::text; RETURN;
      ELSIF v.state = 'p' THEN
        IF v.lease_until IS NULL THEN code := 5; a := 'a pending record has no lease'; RETURN; END IF;
        IF v.lease_until > now_ts THEN
          IF v.fingerprint <> p_fingerprint THEN code := 4; a := v.fingerprint; b := 'pending'; RETURN; END IF;
          code := 3; a := ceil(extract(epoch from v.lease_until - now_ts) * 1000)::bigint::text; RETURN;
        END IF;
        -- The owner's lease ran out without renewal (crashed or stalled): take over below.
      ELSIF v.state <> 'r' THEN
        code := 5; a := 'unknown record state ' || v.state; RETURN;
      END IF;
    END IF;
    UPDATE ${n.table} t SET state = 'p', fencing_token = greatest(t.fencing_token, ${floor}) + 1, owner = p_owner,
        fingerprint = p_fingerprint, lease_until = now_ts + p_lease_ms * interval '1 ms',
        expires_at = now_ts + p_retain_ms * interval '1 ms', payload = NULL
      WHERE t.operation = p_operation AND t.key = p_key AND ${sameVersion}
      RETURNING t.fencing_token INTO granted;
    IF granted IS NOT NULL THEN code := 1; a := granted::text; RETURN; END IF;
  END LOOP;
END
$fn$;

-- complete: the owner's pending row becomes the result (state c; e with no payload when the value could not be
-- encoded), with the exact TTL from now; waiters are notified (at commit). 1 if stored (or already stored by this owner), 0 if another owner holds the row.
CREATE OR REPLACE FUNCTION ${n.fn('complete')}(
  p_operation text, p_key text, p_owner text, p_payload text, p_ttl_ms bigint, lock_timeout_ms int)
RETURNS int LANGUAGE plpgsql AS $fn$
BEGIN
  ${lockTimeout}
  UPDATE ${n.table} t SET state = CASE WHEN p_payload IS NULL THEN 'e' ELSE 'c' END, payload = p_payload,
      lease_until = NULL,
      expires_at = clock_timestamp() + p_ttl_ms * interval '1 ms'
    WHERE ${ownedPending};
  ${notifyIfFound}
  ${alreadyMovedBy("(CASE WHEN p_payload IS NULL THEN 'e' ELSE 'c' END) AND t.payload IS NOT DISTINCT FROM p_payload")}
END
$fn$;

-- renew: extends the owner's lease from now; the row must outlive the lease it grants. 1 if renewed,
-- 0 if the caller no longer owns the row (its lease is lost).
CREATE OR REPLACE FUNCTION ${n.fn('renew')}(
  p_operation text, p_key text, p_owner text, p_lease_ms bigint, lock_timeout_ms int)
RETURNS int LANGUAGE plpgsql AS $fn$
BEGIN
  ${lockTimeout}
  UPDATE ${n.table} t SET lease_until = clock_timestamp() + p_lease_ms * interval '1 ms',
      expires_at = greatest(t.expires_at, clock_timestamp() + p_lease_ms * interval '1 ms')
    WHERE ${ownedPending};
  RETURN FOUND::int;
END
$fn$;

-- release: gives the owner's reservation up (state r, keeping its fencing token and expiry); wakes a waiter.
-- 1 if released (or already released by this owner), 0 otherwise.
CREATE OR REPLACE FUNCTION ${n.fn('release')}(
  p_operation text, p_key text, p_owner text, lock_timeout_ms int)
RETURNS int LANGUAGE plpgsql AS $fn$
BEGIN
  ${lockTimeout}
  UPDATE ${n.table} t SET state = 'r', lease_until = NULL, payload = NULL
    WHERE ${ownedPending};
  ${notifyIfFound}
  ${alreadyMovedBy("'r'")}
END
$fn$;

-- store_if_absent: the result of an unprotected run, only where no live row exists (never over an owner's).
-- 1 if stored, 0 if a live row exists. A fresh row gets fencing token 0 (no owner was granted it); an expired row
-- keeps its counter.
CREATE OR REPLACE FUNCTION ${n.fn('store_if_absent')}(
  p_operation text, p_key text, p_fingerprint text, p_payload text, p_ttl_ms bigint, p_version smallint,
  lock_timeout_ms int)
RETURNS int LANGUAGE plpgsql AS $fn$
BEGIN
  ${lockTimeout}
  INSERT INTO ${n.table} AS t VALUES (p_operation, p_key, 'c', 0, NULL, p_fingerprint, NULL,
      clock_timestamp() + p_ttl_ms * interval '1 ms', p_version, p_payload)
    ON CONFLICT (operation, key) DO UPDATE SET state = 'c', owner = NULL, fingerprint = excluded.fingerprint,
      lease_until = NULL, expires_at = excluded.expires_at, version = excluded.version, payload = excluded.payload
      WHERE t.expires_at <= clock_timestamp();
  ${notifyIfFound}
  RETURN 0;
END
$fn$;

-- insert_completed: the optimistic path of a transactional call (the action ran first, on the same transaction):
-- the completed record, only where no row exists at all, live or not (an expired, released or pending row goes
-- to the claim, which decides). A concurrent uncommitted insert of the key makes this wait on the primary key
-- until that transaction ends. Returns the granted fencing token (the floor + 1, as a fresh claim's), or NULL
-- when a row exists: the caller rolls back and claims. State e with no payload when the value has no encoding.
-- No NOTIFY: a waiter watches a key only after seeing its pending row, and this inserts only where there is none.
-- Plain SQL, no lock timeout of its own (transactional calls have none; the argument keeps the calling shape).
CREATE OR REPLACE FUNCTION ${n.fn('insert_completed')}(
  p_operation text, p_key text, p_owner text, p_fingerprint text, p_payload text, p_ttl_ms bigint,
  p_version smallint, lock_timeout_ms int)
RETURNS bigint LANGUAGE sql AS $fn$
  ${insertCompletedSql(n, ['p_operation', 'p_key', 'p_owner', 'p_fingerprint', 'p_payload', 'p_ttl_ms', 'p_version'])}
$fn$;

-- sweep: deletes at most p_limit expired rows, oldest first, skipping rows another session has locked (a claim
-- taking one over), and raises the fencing floor past every token it deleted, in the same transaction: a claim
-- that finds the row gone reads the raised floor. Bounded, so one sweep never holds many locks or runs long.
-- Delete rows only through this function, or their keys' tokens may repeat.
CREATE OR REPLACE FUNCTION ${n.fn('sweep')}(p_limit int)
RETURNS int LANGUAGE sql AS $fn$
  WITH gone AS (
    DELETE FROM ${n.table} WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${n.table} WHERE expires_at <= clock_timestamp()
        ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED))
    RETURNING fencing_token),
  raised AS (
    UPDATE ${n.fence} SET floor = greatest(floor, (SELECT max(fencing_token) FROM gone))
      WHERE EXISTS (SELECT 1 FROM gone) RETURNING 1)
  SELECT count(*)::int FROM gone
$fn$;
`;
}
