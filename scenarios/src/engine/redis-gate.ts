/**
 * A TCP gate in front of a Redis: the services connect through it, and closing it cuts every connection and refuses
 * new ones, which is what an outage looks like from the services. The demo uses it to take Redis away whatever
 * Redis it found (REDIS_URL, a private redis-server or a container), without stopping a Redis it does not own.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { RedisControl } from './target.js';

/** A running gate. */
export interface RedisGate extends RedisControl {
  /** `redis://127.0.0.1:<port>`: give this to the services. */
  readonly url: string;
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

/** Opens a gate on a free port of 127.0.0.1 in front of `host:port`. */
export async function startRedisGate(upstream: { host: string; port: number }): Promise<RedisGate> {
  const sockets = new Set<Socket>();
  let open = true;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((client) => {
    track(client);
    if (!open) {
      // Closed: the connection is reset at once, as by a Redis that is not there.
      client.resetAndDestroy();
      return;
    }
    const redis = connect({ host: upstream.host, port: upstream.port });
    track(redis);
    client.pipe(redis);
    redis.pipe(client);
    const end = (): void => {
      client.destroy();
      redis.destroy();
    };
    client.once('error', end);
    redis.once('error', end);
    client.once('close', end);
    redis.once('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the Redis gate has no TCP address');
  const cut = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    description: 'the demo closes its gate in front of Redis (every connection cut, new ones refused)',
    stop: async () => {
      open = false;
      cut();
    },
    start: async () => {
      open = true;
    },
    close: async () => {
      open = false;
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
