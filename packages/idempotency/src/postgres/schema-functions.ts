import {
  NOT_IN_TRANSACTION,
  OPEN_TRANSACTION_MARK,
  floorSql,
  insertCompletedSql,
  type SchemaNames,
} from './schema.js';

// The state-change functions, one SQL function each (as the Redis store has one Lua script each), each one
// `CREATE OR REPLACE FUNCTION` statement. A schema version never changes what an existing function does: a
// process of the previous library version may run beside it (a rolling deploy), and its own migrate() may replace
// the function again. A change of behaviour is a new function, called by the library version that needs it.

/** The SQL pieces the functions share. */
function fragments(n: SchemaNames) {
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
  // In the claim's own open transaction (its mark still on), the row is locked by that transaction: see tx_complete.
  const ownedPendingHere = `t.operation = p_operation AND t.key = p_key AND t.owner = p_owner AND t.state = 'p'
      AND (t.expires_at > clock_timestamp()
        OR coalesce(current_setting('${OPEN_TRANSACTION_MARK}', true), '') = 'on')`;
  return { floor, sameVersion, ownedPending, ownedPendingHere, notifyIfFound, alreadyMovedBy, lockTimeout };
}

type Fragments = ReturnType<typeof fragments>;

const claimFn = (n: SchemaNames, { floor, lockTimeout, sameVersion }: Fragments): string => `
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
$fn$`;

/** complete and tx_complete: the same transition and answers, on the row `owned` accepts. */
const completing = (
  n: SchemaNames,
  name: 'complete' | 'tx_complete',
  owned: string,
  { alreadyMovedBy, lockTimeout, notifyIfFound }: Fragments,
): string => `CREATE OR REPLACE FUNCTION ${n.fn(name)}(
  p_operation text, p_key text, p_owner text, p_payload text, p_ttl_ms bigint, lock_timeout_ms int)
RETURNS int LANGUAGE plpgsql AS $fn$
BEGIN
  ${lockTimeout}
  UPDATE ${n.table} t SET state = CASE WHEN p_payload IS NULL THEN 'e' ELSE 'c' END, payload = p_payload,
      lease_until = NULL,
      expires_at = clock_timestamp() + p_ttl_ms * interval '1 ms'
    WHERE ${owned};
  ${notifyIfFound}
  ${alreadyMovedBy("(CASE WHEN p_payload IS NULL THEN 'e' ELSE 'c' END) AND t.payload IS NOT DISTINCT FROM p_payload")}
END
$fn$`;

const completeFn = (n: SchemaNames, f: Fragments): string => `
-- complete: the owner's pending row becomes the result (state c; e with no payload when the value could not be
-- encoded), with the exact TTL from now; waiters are notified (at commit). 1 if stored (or already stored by this owner), 0 if another owner holds the row.
${completing(n, 'complete', f.ownedPending, f)}`;

// Version 2. The transactional path's complete (coordinateInTransaction), where "the transaction is the lease": the
// claim earlier in this same transaction wrote the row, so the row stays locked by the transaction until it ends
// and nobody can have taken it over, however long the action ran. So the owner's pending row is completed even past
// its lease and its expires_at, as long as this runs in the claim's open transaction (the claim's transaction-local
// mark is still on; a commit or rollback in between resets it, and then the row must be live, as for complete).
// The standalone complete keeps its check: there a lapsed row may have been taken over, or may be at any moment.
const txCompleteFn = (n: SchemaNames, f: Fragments): string => `
-- tx_complete: complete, on the claim's own open transaction, whose row lock is the lease (see the library's
-- schema-functions.ts). 1 if stored (or already stored by this owner), 0 otherwise.
${completing(n, 'tx_complete', f.ownedPendingHere, f)}`;

const renewFn = (n: SchemaNames, { lockTimeout, ownedPending }: Fragments): string => `
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
$fn$`;

const releaseFn = (
  n: SchemaNames,
  { alreadyMovedBy, lockTimeout, notifyIfFound, ownedPending }: Fragments,
): string => `
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
$fn$`;

const storeIfAbsentFn = (n: SchemaNames, { lockTimeout, notifyIfFound }: Fragments): string => `
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
$fn$`;

const insertCompletedFn = (n: SchemaNames): string => `
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
$fn$`;

const sweepFn = (n: SchemaNames): string => `
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
$fn$`;

/** Version 1's state-change functions, in the order they were always created. */
export function functionsSql(n: SchemaNames): string[] {
  const f = fragments(n);
  const all = [claimFn, completeFn, renewFn, releaseFn, storeIfAbsentFn, insertCompletedFn, sweepFn];
  return all.map((fn) => fn(n, f).trim());
}

/** Version 2's function: the transactional path's complete (`tx_complete`). */
export function transactionalCompleteSql(n: SchemaNames): string {
  return txCompleteFn(n, fragments(n)).trim();
}
