/**
 * The record protocol's one table (transitions.json): read, checked, decided, and turned into Promela.
 *
 * Everything that interprets the table lives here, side by side: `transitionFor` (the TypeScript decision the
 * property tests' reference model and the stores' table tests use) and `promelaOf` (the same decision written as
 * Promela for spin). Only Node's own modules are imported, so this file also runs as it is:
 * `node model/transitions.ts` rewrites model/transitions.pml from the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RECORDS = ['absent', 'pending', 'completed', 'completedWithoutResult', 'released'] as const;
export const OWNERS = ['caller', 'abandoned', 'other'] as const;
export const LEASES = ['live', 'over'] as const;
export const FINGERPRINTS = ['same', 'other'] as const;
export const CALLS = [
  'claim',
  'complete',
  'completeWithoutResult',
  'renew',
  'release',
  'storeIfAbsent',
] as const;
export const REPLIES = [
  'acquired',
  'replay',
  'replayWithoutResult',
  'inProgress',
  'mismatchPending',
  'mismatchCompleted',
  'true',
  'false',
] as const;
export const FENCES = ['same', 'next', 'fresh', 'unowned', 'restart'] as const;
export const STORES = ['redis', 'postgres'] as const;

export type RecordKind = (typeof RECORDS)[number];
export type OwnerKind = (typeof OWNERS)[number];
export type LeaseKind = (typeof LEASES)[number];
export type FingerprintKind = (typeof FINGERPRINTS)[number];
export type CallKind = (typeof CALLS)[number];
export type ReplyKind = (typeof REPLIES)[number];
export type FenceRule = (typeof FENCES)[number];
export type StoreKind = (typeof STORES)[number];

/** What a call finds, relative to its caller. Absent records have no owner, lease or fingerprint. */
export interface Situation {
  readonly record: RecordKind;
  readonly owner?: OwnerKind;
  readonly lease?: LeaseKind;
  readonly fingerprint?: FingerprintKind;
}

/** The record a call leaves behind; a field left out keeps its value. */
export interface After {
  readonly record?: Exclude<RecordKind, 'absent'>;
  readonly owner?: 'caller' | 'none';
  readonly fingerprint?: 'caller';
  readonly payload?: 'caller' | 'none';
  readonly lease?: 'granted' | 'none';
  readonly expiry?: 'retain' | 'ttl' | 'atLeastLease';
}

export interface Transition {
  readonly id: string;
  readonly call: CallKind;
  readonly when?: Partial<Situation>;
  readonly reply: ReplyKind;
  /** The token the reply carries and the record keeps (the stored one when left out). */
  readonly fence?: FenceRule;
  readonly then: After | 'unchanged';
  readonly stores?: readonly StoreKind[];
  readonly why: string;
}

const TABLE = new URL('./transitions.json', import.meta.url);

/** Replies that carry a fencing token. */
export const TOKEN_REPLIES: readonly ReplyKind[] = ['acquired', 'replay', 'replayWithoutResult'];

/** The table, checked: every value one of the vocabulary's, every call ending in a row that matches anything. */
export function loadTransitions(text: string = readFileSync(TABLE, 'utf8')): Transition[] {
  const { transitions } = JSON.parse(text) as { transitions: Transition[] };
  return checkTransitions(transitions);
}

function oneOf<T extends string>(what: string, value: unknown, allowed: readonly T[]): void {
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new Error(`${what}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
  }
}

/** Throws on a row the interpreters would misread; returns the rows. */
export function checkTransitions(transitions: Transition[]): Transition[] {
  const ids = new Set<string>();
  for (const t of transitions) {
    if (ids.has(t.id)) throw new Error(`two rows are named ${t.id}`);
    ids.add(t.id);
    oneOf(`${t.id} call`, t.call, CALLS);
    oneOf(`${t.id} reply`, t.reply, REPLIES);
    oneOf(`${t.id} fence`, t.fence, FENCES);
    oneOf(`${t.id} when.record`, t.when?.record, RECORDS);
    oneOf(`${t.id} when.owner`, t.when?.owner, OWNERS);
    oneOf(`${t.id} when.lease`, t.when?.lease, LEASES);
    oneOf(`${t.id} when.fingerprint`, t.when?.fingerprint, FINGERPRINTS);
    for (const store of t.stores ?? []) oneOf(`${t.id} stores`, store, STORES);
    if (t.then !== 'unchanged') {
      oneOf(`${t.id} then.record`, t.then.record, RECORDS.slice(1));
      oneOf(`${t.id} then.owner`, t.then.owner, ['caller', 'none']);
      oneOf(`${t.id} then.fingerprint`, t.then.fingerprint, ['caller']);
      oneOf(`${t.id} then.payload`, t.then.payload, ['caller', 'none']);
      oneOf(`${t.id} then.lease`, t.then.lease, ['granted', 'none']);
      oneOf(`${t.id} then.expiry`, t.then.expiry, ['retain', 'ttl', 'atLeastLease']);
    }
    const known = new Set(['id', 'call', 'when', 'reply', 'fence', 'then', 'stores', 'why']);
    for (const field of Object.keys(t))
      if (!known.has(field)) throw new Error(`${t.id}: unknown field ${field}`);
  }
  // Every call decides every situation on every store, and every row decides at least one of them.
  const used = new Set<string>();
  for (const call of CALLS) {
    for (const store of STORES) {
      for (const s of situations()) used.add(transitionFor(transitions, call, s, store).id);
    }
  }
  const dead = transitions.filter((t) => !used.has(t.id)).map((t) => t.id);
  if (dead.length) throw new Error(`rows no situation reaches: ${dead.join(', ')}`);
  return transitions;
}

/** Every situation a call can find (the owner of a completed or released record is never "abandoned"). */
export function situations(): Situation[] {
  const found: Situation[] = [{ record: 'absent' }];
  for (const record of RECORDS.slice(1)) {
    for (const owner of OWNERS) {
      if (owner === 'abandoned' && record !== 'pending') continue;
      // The caller's own record has the caller's fingerprint: one owner token is one request.
      const fingerprints = owner === 'caller' ? (['same'] as const) : FINGERPRINTS;
      for (const fingerprint of fingerprints) {
        if (record === 'pending')
          for (const lease of LEASES) found.push({ record, owner, lease, fingerprint });
        else found.push({ record, owner, fingerprint });
      }
    }
  }
  return found;
}

function matches(when: Partial<Situation> | undefined, s: Situation): boolean {
  return Object.entries(when ?? {}).every(([k, v]) => s[k as keyof Situation] === v);
}

/** The row that decides `call` in situation `s` on `store`: the first whose `when` matches. */
export function transitionFor(
  transitions: readonly Transition[],
  call: CallKind,
  s: Situation,
  store?: StoreKind,
): Transition {
  const row = transitions.find(
    (t) =>
      t.call === call && matches(t.when, s) && (!t.stores || store === undefined || t.stores.includes(store)),
  );
  if (!row) throw new Error(`no row of ${call} matches ${JSON.stringify(s)}`);
  return row;
}

// Promela: the same decision list, one inline per call, for model/record.pml.

const constant = (prefix: string, name: string) =>
  `${prefix}_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;

const SITUATION_TESTS: Record<keyof Situation, (value: string) => string> = {
  record: (v) => (v === 'absent' ? '!LIVE_RECORD' : `(LIVE_RECORD && recState == ${constant('REC', v)})`),
  owner: (v) =>
    ({
      caller: 'recOwner == o',
      abandoned: '(ab != 0 && recOwner == ab)',
      other: '(recOwner != o && (ab == 0 || recOwner != ab))',
    })[v as OwnerKind],
  lease: (v) => (v === 'live' ? 'recLease' : '!recLease'),
  fingerprint: (v) => (v === 'same' ? 'recFp == fp' : 'recFp != fp'),
};

function conditionOf(t: Transition): string {
  const tests = Object.entries(t.when ?? {}).map(([k, v]) => SITUATION_TESTS[k as keyof Situation](v));
  if (t.stores) tests.unshift(`(${t.stores.map((s) => `FLAVOUR_${s.toUpperCase()}`).join(' || ')})`);
  return tests.length ? tests.join(' && ') : 'true';
}

/** The statements of one row: reply, token, ghost hooks (record.pml defines them), then the record after. */
function effectOf(t: Transition): string[] {
  const lines = [`/* ${t.id} */ rep = ${constant('R', t.reply)};`];
  const fence = t.fence ?? 'same';
  lines.push(`${constant('FENCE', fence)}(newFence);`);
  lines.push(TOKEN_REPLIES.includes(t.reply) ? 'repFence = newFence;' : 'repFence = 0;');
  if (fence === 'next' || fence === 'fresh' || fence === 'restart') lines.push('ON_GRANT(o, newFence);');
  if (t.call === 'complete' || t.call === 'completeWithoutResult') {
    if (t.reply === 'true') lines.push('ON_COMPLETED(o);');
  }
  if (t.then === 'unchanged') return lines;
  const after = t.then;
  lines.push(t.call === 'claim' ? 'ON_CLAIM_WRITE(o);' : 'ON_OWNER_WRITE(o);');
  if (after.record) lines.push(`recState = ${constant('REC', after.record)};`);
  if (after.owner) lines.push(`recOwner = ${after.owner === 'caller' ? 'o' : '0'};`);
  if (after.fingerprint) lines.push('recFp = fp;');
  lines.push('recFence = newFence;', 'recAlive = true;');
  if (after.lease) lines.push(`recLease = ${after.lease === 'granted'};`);
  // Whether the record outlives the lease it holds, so that it cannot expire under a live owner.
  if (after.expiry === 'retain' || after.expiry === 'atLeastLease') lines.push('recPinned = true;');
  else if (after.expiry === 'ttl' || after.lease === 'granted') lines.push('recPinned = false;');
  return lines;
}

function decisionOf(rows: readonly Transition[], indent: string): string {
  const [row, ...rest] = rows;
  if (!row) throw new Error('a call without rows');
  const body = effectOf(row).map((l) => `${indent}  ${l}`);
  if (rest.length === 0) return body.join('\n');
  return [
    `${indent}if`,
    `${indent}:: (${conditionOf(row)}) ->`,
    ...body,
    `${indent}:: else ->`,
    decisionOf(rest, `${indent}  `),
    `${indent}fi`,
  ].join('\n');
}

/**
 * The table as Promela: its constants and one inline per call (`claim_(o, fp, ab, rep, repFence)` etc.: owner,
 * fingerprint, abandoned owner or 0; the reply and its token are written to the last two), each a sequence the
 * caller runs inside one atomic step (a store call is atomic).
 */
export function promelaOf(transitions: readonly Transition[], source = 'model/transitions.json'): string {
  const defines = (prefix: string, names: readonly string[], from = 0) =>
    names.map((n, i) => `#define ${constant(prefix, n)} ${i + from}`).join('\n');
  const inlines = CALLS.map((call) => {
    const rows = transitions.filter((t) => t.call === call);
    return [
      `/* ${call}: ${rows.map((r) => r.id.split('/')[1]).join(', ')} */`,
      `inline ${call}_(o, fp, ab, rep, repFence) {`,
      `${decisionOf(rows, '  ')};`,
      '  newFence = 0',
      '}',
    ].join('\n');
  });
  return [
    `/* Generated from ${source} by model/transitions.ts: do not edit, run \`node model/transitions.ts\`. */`,
    '',
    defines('REC', RECORDS),
    '',
    defines('R', REPLIES, 1),
    '',
    ...inlines.flatMap((i) => [i, '']),
  ].join('\n');
}

/** A table with rows replaced or inserted (the model's deliberately broken variants). */
export interface TablePatch {
  readonly replace?: string;
  readonly insertBefore?: string;
  readonly row: Omit<Transition, 'id' | 'call' | 'why'> & Partial<Pick<Transition, 'id' | 'why'>>;
}

export function patched(transitions: readonly Transition[], patches: readonly TablePatch[]): Transition[] {
  const rows = [...transitions];
  for (const patch of patches) {
    const target = patch.replace ?? patch.insertBefore;
    const at = rows.findIndex((t) => t.id === target);
    const old = rows[at];
    if (!old) throw new Error(`no row ${target} to patch`);
    const row: Transition = { id: `${old.id}*`, call: old.call, why: 'broken on purpose', ...patch.row };
    rows.splice(at, patch.replace ? 1 : 0, row);
  }
  return checkTransitions(rows);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = new URL('./transitions.pml', import.meta.url);
  writeFileSync(out, promelaOf(loadTransitions()));
  console.log(`wrote ${fileURLToPath(out)}`);
}
