import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { waitFor } from './free-port.js';
import { startPrivateRedisServer, type RedisHandle } from './redis-server.js';

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
  const link = await Forwarder.start(primary.port);
  const replica = await startPrivateRedisServer({ args: ['--replicaof', '127.0.0.1', String(link.port)] });
  const front = await Forwarder.start(primary.port);
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
    url: `redis://127.0.0.1:${front.port}`,
    primary,
    replica,
    client: () => new Redis({ host: '127.0.0.1', port: front.port }),
    holdReplication: () => link.hold(),
    releaseReplication: () => link.release(),
    waitInSync,
    failover: async () => {
      await crash(primary);
      await control.replicaof('NO', 'ONE');
      front.retarget(replica.port);
      // Clients still connected to the dead primary's address must reconnect (and so reach the new primary).
      front.dropConnections();
    },
    close: async () => {
      control.disconnect();
      front.close();
      link.close();
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

/** One forwarded connection; bytes from the server are held while the forwarder holds. */
interface Pair {
  readonly downstream: Socket;
  readonly upstream: Socket;
  held: Buffer[];
}

/** A TCP forwarder to 127.0.0.1:<target> that can hold server-to-client bytes and change its target. */
class Forwarder {
  private readonly pairs = new Set<Pair>();
  private holding = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private target: number,
  ) {
    server.on('connection', (downstream) => this.forward(downstream));
  }

  static async start(target: number): Promise<Forwarder> {
    const server = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        if (address === null || typeof address === 'string') reject(new Error('no port'));
        else resolve(address.port);
      });
    });
    return new Forwarder(server, port, target);
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const pair of this.pairs) {
      for (const chunk of pair.held) pair.downstream.write(chunk);
      pair.held = [];
    }
  }

  retarget(port: number): void {
    this.target = port;
  }

  dropConnections(): void {
    for (const pair of this.pairs) this.drop(pair);
  }

  close(): void {
    this.dropConnections();
    this.server.close();
  }

  private forward(downstream: Socket): void {
    const upstream = connect({ host: '127.0.0.1', port: this.target });
    const pair: Pair = { downstream, upstream, held: [] };
    this.pairs.add(pair);
    downstream.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (this.holding) pair.held.push(chunk);
      else downstream.write(chunk);
    });
    // Either side gone: the other goes too, and held bytes die with the connection (a crashed primary's).
    for (const socket of [downstream, upstream]) {
      socket.on('error', () => this.drop(pair));
      socket.on('close', () => this.drop(pair));
    }
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.held = [];
    pair.downstream.destroy();
    pair.upstream.destroy();
  }
}
