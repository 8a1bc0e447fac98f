import { Redis } from 'ioredis';
import { waitFor } from './wait.js';
import { startPrivateRedisServer, type RedisHandle } from './redis-server.js';
import { startTcpProxy, type TcpProxyTarget } from './tcp-proxy.js';

/**
 * A primary with one replica, for failover tests. Clients connect to {@link url}, an address that follows the
 * current primary (as a Sentinel-aware client or a virtual IP would); the replica reaches the primary through a
 * link the test can hold, so "the replica had not received it yet" happens every time instead of by luck.
 */
export interface RedisReplicationHandle {
  /** Where clients connect: the primary until {@link failover}, then the promoted replica. */
  readonly url: string;
  readonly primary: RedisHandle;
  readonly replica: RedisHandle;
  /** A new ioredis client on {@link url}; the caller closes it. */
  client(): Redis;
  /**
   * Stops delivering the replication stream to the replica (it lags: writes stay on the primary and are not
   * acknowledged). What is held is lost if the primary dies before {@link releaseReplication}.
   */
  holdReplication(): void;
  /** Delivers what was held and resumes replication. */
  releaseReplication(): void;
  /** Resolves once the replica's link to the primary is up and it has processed everything the primary wrote. */
  waitInSync(): Promise<void>;
  /**
   * A crash failover: SIGKILL the primary (no shutdown, nothing flushed to the replica), `REPLICAOF NO ONE` on the
   * replica, and point {@link url} at it. Connected clients see their connection drop and reconnect to it.
   */
  failover(): Promise<void>;
  /** Stops both servers and the forwarding sockets. */
  close(): Promise<void>;
}

/** Starts two private redis-servers, the second `--replicaof` the first, and waits until the replica is in sync. */
export async function startRedisReplication(): Promise<RedisReplicationHandle> {
  // Full sync at once instead of after the default 5 s wait for more replicas to join.
  const primary = await startPrivateRedisServer({ args: ['--repl-diskless-sync-delay', '0'] });
  // The replica is the link's client: holding the proxy's replies holds the replication stream.
  const link = await startTcpProxy({ host: primary.host, port: primary.port });
  const replica = await startPrivateRedisServer({ args: ['--replicaof', '127.0.0.1', String(link.port)] });
  // The proxy opens each upstream connection to the target's address at that moment: changing it (failover)
  // sends every reconnecting client to the new primary, as a virtual IP or DNS switch would.
  const current: { host: string; port: number } = { host: primary.host, port: primary.port };
  const front = await startTcpProxy(current satisfies TcpProxyTarget);
  const control = new Redis({ host: replica.host, port: replica.port, lazyConnect: true });
  control.on('error', () => undefined);

  const waitInSync = async (): Promise<void> => {
    const target = await offsetOf(primary, 'master_repl_offset');
    await waitFor('the replica to catch up', async () => {
      const info = await control.info('replication');
      if (!info.includes('master_link_status:up')) throw new Error('replication link is down');
      const offset = Number(/slave_repl_offset:(\d+)/.exec(info)?.[1]);
      if (!(offset >= target)) throw new Error(`replica at ${offset}, primary at ${target}`);
    });
  };
  await waitInSync();

  return {
    url: front.url,
    primary,
    replica,
    client: () => new Redis({ host: front.host, port: front.port }),
    holdReplication: () => link.holdReplies(),
    releaseReplication: () => link.releaseReplies(),
    waitInSync,
    failover: async () => {
      await crash(primary);
      await control.replicaof('NO', 'ONE');
      current.port = replica.port;
      // Clients still connected to the dead primary's address must reconnect (and so reach the new primary).
      for (const connection of front.connections) connection.drop();
    },
    close: async () => {
      control.disconnect();
      await Promise.all([front.close(), link.close()]);
      await Promise.all([primary.close(), replica.close()]);
    },
  };
}

async function offsetOf(redis: RedisHandle, field: string): Promise<number> {
  const client = redis.client();
  try {
    return Number(new RegExp(`${field}:(\\d+)`).exec(await client.info('replication'))?.[1]);
  } finally {
    client.disconnect();
  }
}

/** SIGKILL the redis-server behind `redis` (a crash: no shutdown, no last replication flush). */
async function crash(redis: RedisHandle): Promise<void> {
  const client = redis.client();
  let pid: number;
  try {
    pid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
  } finally {
    client.disconnect();
  }
  process.kill(pid, 'SIGKILL');
  await waitFor('the primary to die', async () => {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    throw new Error(`process ${pid} still alive`);
  });
}
