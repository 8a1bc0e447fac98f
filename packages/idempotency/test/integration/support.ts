import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type { Cluster, Redis } from 'ioredis';
import { sleep } from '@retry-safe/testing';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import {
  IdempotencyCoordinator,
  jsonCodec,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyEvent,
  type IdempotencyStore,
} from '../../src/index.js';

export interface Charge {
  id: string;
  amount: number;
  currency: string;
}

/** An action that counts its executions and can be held open until released. */
export function countingAction(options: { holdMs?: number; fail?: boolean } = {}) {
  let executions = 0;
  const tokens: number[] = [];
  let release: () => void = () => {};
  const gate = options.holdMs === undefined ? undefined : new Promise<void>((r) => (release = r));
  return {
    get executions() {
      return executions;
    },
    tokens,
    release: () => release(),
    run: async ({ fencingToken }: { fencingToken: number }): Promise<Charge> => {
      executions += 1;
      tokens.push(fencingToken);
      const n = executions;
      if (gate) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gate, new Promise<void>((r) => (timer = setTimeout(r, options.holdMs)))]);
        clearTimeout(timer);
      }
      if (options.fail) throw new Error(`provider failed on execution ${n}`);
      return { id: `ch_${n}`, amount: 1000, currency: 'EUR' };
    },
  };
}

// One `sleep` for every suite (packages/testing); re-exported so the suites keep importing their support file.
export { sleep };

/** Wraps a store, counting calls per method, to prove how often the coordinator touched it. */
export function countingStore(inner: IdempotencyStore): IdempotencyStore & { calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const wrapped: IdempotencyStore & { calls: Record<string, number> } = {
    calls,
    claim: (r) => ((calls['claim'] = (calls['claim'] ?? 0) + 1), inner.claim(r)),
    complete: (r) => ((calls['complete'] = (calls['complete'] ?? 0) + 1), inner.complete(r)),
    renew: (r) => ((calls['renew'] = (calls['renew'] ?? 0) + 1), inner.renew(r)),
    release: (r) => ((calls['release'] = (calls['release'] ?? 0) + 1), inner.release(r)),
    storeIfAbsent: (r) => (
      (calls['storeIfAbsent'] = (calls['storeIfAbsent'] ?? 0) + 1),
      inner.storeIfAbsent(r)
    ),
  };
  if (inner.watch) wrapped.watch = inner.watch.bind(inner);
  return wrapped;
}

/** What the shared behaviour suite needs of a store under test, whatever it runs on. */
export interface StoreWorld<S extends IdempotencyStore = IdempotencyStore> {
  readonly store: S;
  readonly events: IdempotencyEvent[];
  coordinator(options?: CoordinatorOptions, over?: IdempotencyStore): IdempotencyCoordinator;
  /** Another process's coordinator: its own store object (and notification connection) on the same data. */
  otherStore(): S;
  request(key: string, extra?: Partial<CoordinateRequest<Charge>>): CoordinateRequest<Charge>;
  /** `<operation>:<key>` of every live record of this world. */
  records(): Promise<string[]>;
  /** Someone else's write removes a record (an operator, an expiry), bypassing the store. */
  removeRecord(operation: string, key: string): Promise<void>;
  /** Remaining lifetime of a record in ms, as the store's own clock sees it. */
  remainingTtlMs(operation: string, key: string): Promise<number>;
  close(): Promise<void>;
}

/** The store-independent half of a world: events, coordinators and requests over `store` and its siblings. */
export function storeWorld<S extends IdempotencyStore & { close(): Promise<void> }>(
  store: S,
  makeStore: () => S,
  data: Pick<StoreWorld, 'records' | 'removeRecord' | 'remainingTtlMs'> & { close?: () => Promise<void> },
): StoreWorld<S> {
  const events: IdempotencyEvent[] = [];
  const stores: S[] = [store];
  return {
    store,
    events,
    coordinator: (options: CoordinatorOptions = {}, over: IdempotencyStore = store): IdempotencyCoordinator =>
      new IdempotencyCoordinator(over, { onEvent: (e) => events.push(e), ...options }),
    otherStore: () => {
      const other = makeStore();
      stores.push(other);
      return other;
    },
    request: (key: string, extra: Partial<CoordinateRequest<Charge>> = {}): CoordinateRequest<Charge> => ({
      operation: 'payment.charge.t1',
      key,
      ttlMs: 60_000,
      codec: jsonCodec<Charge>(),
      fingerprint: 'fp-a',
      ...extra,
    }),
    records: data.records,
    removeRecord: data.removeRecord,
    remainingTtlMs: data.remainingTtlMs,
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await data.close?.();
    },
  };
}

/** A per-test world: a unique key prefix on a shared Redis, so tests never need to flush anything. */
export function world(client: Redis | Cluster, options: { commandTimeoutMs?: number } = {}) {
  const prefix = `test:${randomUUID()}:`;
  const make = () =>
    new RedisIdempotencyStore(client, { keyPrefix: prefix, commandTimeoutMs: 1000, ...options });
  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    const nodes = 'nodes' in client ? client.nodes('master') : [client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
    }
    return found;
  };
  const base = storeWorld(make(), make, {
    records: async () => (await keys()).map((k) => k.slice(prefix.length)),
    removeRecord: async (operation, key) => void (await client.del(`${prefix}${operation}:${key}`)),
    remainingTtlMs: (operation, key) => client.pttl(`${prefix}${operation}:${key}`),
  });
  /** The Redis keys of every record of this world (with the prefix). */
  return { ...base, prefix, keys };
}

export type World = ReturnType<typeof world>;

/** A Redis (or Redis Cluster) and one client for the whole suite: started in `beforeAll`, closed in `afterAll`. */
export function suiteRedis<C extends Redis | Cluster>(
  start: () => Promise<{ client(): C; close(): Promise<void> }>,
  startTimeoutMs?: number,
) {
  const suite = {} as { handle: { close(): Promise<void> }; client: C };
  beforeAll(async () => {
    const handle = await start();
    suite.handle = handle;
    suite.client = handle.client();
  }, startTimeoutMs);
  afterAll(async () => {
    await suite.client.quit();
    await suite.handle.close();
  });
  return suite;
}

/** Resolves once `probe()` resolves truthy; rejects after `timeoutMs` with `what` (a bound, not a measurement). */
export async function eventually(what: string, probe: () => Promise<unknown> | unknown, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
}

/** Subscribers of a sharded channel, summed over every master (only the slot's owner has any). */
export async function shardSubscribers(client: Redis | Cluster, channel: string): Promise<number> {
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  let count = 0;
  for (const node of nodes) {
    const reply = (await node.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
    count += Number(reply[1]);
  }
  return count;
}

/** How the behaviour suite reaches one kind of store: a fresh world per test, and ways to corrupt a record. */
export interface BehaviourBackend {
  world(): StoreWorld | Promise<StoreWorld>;
  /** Ways to leave an unreadable record under an operation and key, bypassing the store. */
  readonly corruptions: readonly (readonly [string, (operation: string, key: string) => Promise<void>])[];
}

/** The behaviour suite on Redis (standalone or Cluster): a key prefix per test. */
export function redisBackend(client: () => Redis | Cluster): BehaviourBackend {
  let prefix = '';
  const set = (value: string) => async (operation: string, key: string) =>
    void (await client().set(`${prefix}${operation}:${key}`, value));
  return {
    world: () => {
      const w = world(client());
      prefix = w.prefix;
      return w;
    },
    corruptions: [
      [
        'a hash where a string belongs',
        async (operation, key) => void (await client().hset(`${prefix}${operation}:${key}`, { v: '1' })),
      ],
      ['an unreadable header', set('garbage')],
      ['an unknown format version', set('99|c|1|||4|fp-a{}')],
      ['an unknown state', set('1|x|1|||4|fp-a{}')],
      ['a result the codec cannot decode', set('1|c|1|||4|fp-a{not json')],
    ],
  };
}
