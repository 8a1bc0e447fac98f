import { afterAll, beforeAll } from '@jest/globals';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import {
  poolThrough,
  startPostgres,
  startTcpProxy,
  type PostgresHandle,
  type ProxyConnection,
  type ProxyDirection,
  type TcpProxy,
} from '@retry-safe/testing';
import type { IdempotencyStore } from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { postgresWorld } from './postgres-support.js';
import type { ProxiedRedis } from './proxied-redis.js';
import { sleep, world, type StoreWorld } from './support.js';

/** What a test does to the network between the store under test and its server (every connection, new ones too). */
export interface NetworkFaults {
  /** Requests reach the server; its replies are kept from the client until {@link releaseReplies}. */
  holdReplies(): void;
  releaseReplies(): void;
  /** Bytes going `direction` are swallowed; both sockets stay open (neither side hears). */
  blackhole(direction: ProxyDirection): void;
  /** Each later reply reaches the client `ms` after the server sent it. */
  delayReplies(ms: number): void;
  /** Every open connection is reset (ECONNRESET); what the server did stays done. */
  resetAll(): void;
  /**
   * The network is back: no more swallowing or delaying, and the connections that lost bytes are closed (TCP would
   * have given them up: a real network loses no byte of a connection that lives on). Resolves once the store's
   * clients reach the server again.
   */
  heal(): Promise<void>;
}

/** A per-test world whose store reaches its server through {@link NetworkFaults}. */
export interface FaultyWorld extends StoreWorld {
  /** Another process' store on the same records, straight to the server; closed with the world. */
  directStore(): IdempotencyStore;
  /** The record's state as the server has it ('p' pending, 'c' completed, 'r' released), read past the proxy. */
  stateOf(key: string): Promise<string | undefined>;
  /**
   * Server sessions still running a statement on this world's records or holding a transaction open (the
   * `pg_stat_activity` rows); 0 for a store without sessions (Redis).
   */
  busySessions(): Promise<number>;
}

/** One store kind behind TCP proxies, for a whole suite. */
export interface FaultyStores {
  readonly net: NetworkFaults;
  world(options?: { commandTimeoutMs?: number }): Promise<FaultyWorld>;
  close(): Promise<void>;
}

const OPERATION = 'payment.charge.t1';

/** Resolves once `probe` answers within 200 ms; tries for up to 5 s. */
async function reachable(what: string, probe: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const ok = await Promise.race([probe().then(() => true), sleep(200).then(() => false)]).catch(
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} is not reachable after the network healed`);
    await sleep(20);
  }
}

/** The faults of `proxies` (one proxy, or Redis' set of them); `reached` resolves once the clients are back. */
function networkFaults(
  proxies: Omit<NetworkFaults, 'heal'> & { heal(): void; readonly connections: readonly ProxyConnection[] },
  reached: () => Promise<void>,
): NetworkFaults {
  return {
    holdReplies: () => proxies.holdReplies(),
    releaseReplies: () => proxies.releaseReplies(),
    blackhole: (direction) => proxies.blackhole(direction),
    delayReplies: (ms) => proxies.delayReplies(ms),
    resetAll: () => proxies.resetAll(),
    heal: async () => {
      proxies.heal();
      // Closed, not reset: a reset of a half-closed socket can leave its handle open, and Jest would not exit.
      for (const connection of proxies.connections) connection.drop();
      await reached();
    },
  };
}

/** Redis (standalone or Cluster) behind its proxies: a client through them per world, a key prefix per world. */
export function faultyRedis(net: ProxiedRedis): FaultyStores {
  const clients: (Redis | Cluster)[] = [];
  // A Cluster is ready again only once it has reconnected as a whole (its slots refreshed), not node by node.
  const ping = async (client: Redis | Cluster) => {
    await client.ping();
    if (client.status !== 'ready') throw new Error(`the client is ${client.status}`);
    for (const node of 'nodes' in client ? client.nodes('master') : [client]) await node.ping();
  };
  return {
    net: networkFaults(net, async () => {
      for (const client of clients) await reachable('Redis', () => ping(client));
    }),
    world: async (options = {}) => {
      const client = await net.client();
      clients.push(client);
      const w = world(client, options);
      const directs: RedisIdempotencyStore[] = [];
      return {
        ...w,
        directStore: () => {
          const store = new RedisIdempotencyStore(net.direct, { keyPrefix: w.prefix });
          directs.push(store);
          return store;
        },
        stateOf: async (key) => (await net.direct.get(`${w.prefix}${OPERATION}:${key}`))?.split('|')[1],
        busySessions: async () => 0,
        close: async () => {
          await w.close();
          for (const store of directs) await store.close();
        },
      };
    },
    close: () => net.close(),
  };
}

/** {@link faultyPostgres}: also the server, its proxy and a pool straight to it, for PostgreSQL's own tests. */
export interface FaultyPostgres extends FaultyStores {
  readonly server: PostgresHandle;
  readonly proxy: TcpProxy;
  readonly direct: pg.Pool;
}

/** A private PostgreSQL database behind a proxy: a pool through it and a table per world. */
export async function faultyPostgres(): Promise<FaultyPostgres> {
  const server: PostgresHandle = await startPostgres();
  const proxy: TcpProxy = await startTcpProxy(server);
  const direct = server.pool({ max: 4 });
  const pools = new Set<pg.Pool>();
  return {
    server,
    proxy,
    direct,
    net: networkFaults(proxy, async () => {
      for (const pool of pools) await reachable('PostgreSQL', () => pool.query('SELECT 1'));
    }),
    world: async (options = {}) => {
      const pool = poolThrough(server, proxy, { max: 4 });
      pools.add(pool);
      const w = await postgresWorld(pool, { sweepIntervalMs: 0, ...options }, direct);
      // One connection up, so a fault meets a statement on an open connection, not the connect.
      await pool.query('SELECT 1');
      const directs: PostgresIdempotencyStore[] = [];
      return {
        ...w,
        directStore: () => {
          const store = new PostgresIdempotencyStore(direct, { table: w.table, sweepIntervalMs: 0 });
          directs.push(store);
          return store;
        },
        stateOf: async (key) =>
          (await direct.query<{ state: string }>(`SELECT state FROM ${w.table} WHERE key = $1`, [key]))
            .rows[0]?.state,
        busySessions: () => busySessions(direct, w.table),
        close: async () => {
          await w.close();
          for (const store of directs) await store.close();
          pools.delete(pool);
          await pool.end();
        },
      };
    },
    close: async () => {
      await direct.end();
      await proxy.close();
      await server.close();
    },
  };
}

/**
 * Sessions of the suite's own database in a transaction, or running a statement of `table`'s functions; `where`
 * narrows them (e.g. `AND wait_event_type = 'Lock'`).
 */
export async function busySessions(direct: pg.Pool, table: string, where = ''): Promise<number> {
  const { rows } = await direct.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        AND (state LIKE 'idle in transaction%' OR (state = 'active' AND position($1 in query) > 0)) ${where}`,
    [table],
  );
  return rows[0]!.n;
}

/** {@link FaultyStores} for the whole suite: started in `beforeAll`, closed in `afterAll`. */
export function suiteFaultyStores<S extends FaultyStores>(start: () => Promise<S>): () => S {
  let stores: S | undefined;
  beforeAll(async () => {
    stores = await start();
  }, 30_000);
  afterAll(async () => {
    await stores?.close();
  });
  return () => stores!;
}
