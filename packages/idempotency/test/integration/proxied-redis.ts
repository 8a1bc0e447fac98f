import { Cluster, type ClusterOptions, type Redis, type RedisOptions } from 'ioredis';
import {
  startTcpProxy,
  type ProxyConnection,
  type ProxyDirection,
  type RedisClusterHandle,
  type RedisHandle,
  type TcpProxy,
} from '@retry-safe/testing';
import { scripts } from '../../src/redis/scripts.js';

/** Redis (standalone or Cluster) behind TCP proxies that lose, hold or delay replies: one proxy per node. */
export interface ProxiedRedis {
  /** A client straight to Redis, for the test's own reads and for "another process". */
  readonly direct: Redis | Cluster;
  /** Every connection accepted by any proxy so far. */
  readonly connections: readonly ProxyConnection[];
  /** A new client through the proxies, with every script loaded (so each call is an EVALSHA to match). */
  client(options?: RedisOptions): Promise<Redis | Cluster>;
  /** {@link TcpProxy.dropAfterRequest} on whichever node the matching request goes to. */
  dropAfterRequest(matches: (request: string) => boolean): Promise<void>;
  holdReplies(): void;
  releaseReplies(): void;
  /** {@link TcpProxy.blackhole}, {@link TcpProxy.delayReplies}, {@link TcpProxy.heal}, {@link TcpProxy.resetAll} on every proxy. */
  blackhole(direction: ProxyDirection): void;
  delayReplies(ms: number): void;
  heal(): void;
  resetAll(): void;
  /** The connection that sent `text` (e.g. the SSUBSCRIBE of a channel), if any. */
  connectionThatSent(text: string): ProxyConnection | undefined;
  /** Closes the clients, the proxies and the Redis behind them. */
  close(): Promise<void>;
}

function proxiedRedis(
  proxies: TcpProxy[],
  direct: Redis | Cluster,
  connect: (options: RedisOptions) => Redis | Cluster,
  target: { close(): Promise<void> },
): ProxiedRedis {
  const clients: (Redis | Cluster)[] = [];
  const connections = () => proxies.flatMap((p) => p.connections);
  return {
    direct,
    get connections() {
      return connections();
    },
    client: async (options = {}) => {
      const client = connect(options);
      client.on('error', () => undefined);
      clients.push(client);
      // A Cluster knows its nodes once it has connected.
      if ('nodes' in client) await client.ping();
      for (const node of 'nodes' in client ? client.nodes('master') : [client]) {
        for (const script of Object.values(scripts)) await node.script('LOAD', script.source);
      }
      return client;
    },
    dropAfterRequest: (matches) => Promise.race(proxies.map((p) => p.dropAfterRequest(matches))),
    holdReplies: () => proxies.forEach((p) => p.holdReplies()),
    releaseReplies: () => proxies.forEach((p) => p.releaseReplies()),
    blackhole: (direction) => proxies.forEach((p) => p.blackhole(direction)),
    delayReplies: (ms) => proxies.forEach((p) => p.delayReplies(ms)),
    heal: () => proxies.forEach((p) => p.heal()),
    resetAll: () => proxies.forEach((p) => p.resetAll()),
    connectionThatSent: (text) =>
      connections().find((c) => c.forwarded.some((chunk) => chunk.includes(text))),
    close: async () => {
      for (const c of clients) c.disconnect();
      direct.disconnect();
      for (const p of proxies) await p.close();
      await target.close();
    },
  };
}

/** A standalone Redis behind one proxy; closing it closes `handle` too. */
export async function proxiedStandalone(handle: RedisHandle): Promise<ProxiedRedis> {
  const proxy = await startTcpProxy(handle);
  const connect = (options: RedisOptions) => handle.client({ port: proxy.port, ...options });
  return proxiedRedis([proxy], handle.client(), connect, handle);
}

/**
 * A Redis Cluster behind one proxy per master; `natMap` sends the client to the proxies, not to the nodes. Closing
 * it closes `cluster` too. `options` go to every proxied client (e.g. its retry delays).
 */
export async function proxiedCluster(
  cluster: RedisClusterHandle,
  options: ClusterOptions = {},
): Promise<ProxiedRedis> {
  const proxies = await Promise.all(cluster.nodes.map((node) => startTcpProxy(node)));
  const natMap = Object.fromEntries(
    cluster.nodes.map((node, i) => [`127.0.0.1:${node.port}`, { host: '127.0.0.1', port: proxies[i]!.port }]),
  );
  const startupNodes = proxies.map((p) => ({ host: p.host, port: p.port }));
  // A dropped connection sends ioredis' retry of its command to a random node, which may answer MOVED. ioredis
  // records a MOVED target unmapped (the node's own port, which its pool keyed by the proxies' ports does not
  // know), so each redirect goes to a random master again: one in three is the right one, and 16 redirections
  // (the default) ran out once in a loaded run ("Too many Cluster redirections", a (2/3)^16 chance). 64 make it
  // about 1 in 10^11. Only the proxied client has the natMap; the services' clients do not.
  const maxRedirections = 64;
  return proxiedRedis(
    proxies,
    cluster.client(),
    (redisOptions) => new Cluster(startupNodes, { ...options, natMap, redisOptions, maxRedirections }),
    cluster,
  );
}
