import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { freePort } from './free-port.js';
import { startPrivateRedisServer, type RedisHandle } from './redis-server.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

/** A local Redis Cluster of private `redis-server` processes. */
export interface RedisClusterHandle {
  readonly nodes: readonly RedisHandle[];
  /** A new ioredis Cluster client; the caller closes it. */
  client(): Cluster;
  close(): Promise<void>;
}

/**
 * Starts `masters` redis-servers with cluster mode on and joins them with `redis-cli --cluster create`
 * (no replicas). Needs the `redis-server` and `redis-cli` binaries.
 */
export async function startRedisCluster({
  masters = 3,
}: { masters?: number } = {}): Promise<RedisClusterHandle> {
  const nodes: RedisHandle[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      nodes.push(
        await startPrivateRedisServer({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${i}.conf`,
            '--cluster-node-timeout',
            '2000',
            // The bus port would otherwise be the client port + 10 000: a port nobody checked was free.
            '--cluster-port',
            String(await freePort()),
          ],
        }),
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const first = nodes[0]!;
    await waitFor('cluster state ok', async () => {
      const probe = first.client({ lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await probe.connect();
        const info = await probe.cluster('INFO');
        if (!String(info).includes('cluster_state:ok')) throw new Error(String(info));
      } finally {
        probe.disconnect();
      }
    });
  } catch (error) {
    await Promise.all(nodes.map((n) => n.close()));
    throw error;
  }
  return {
    nodes,
    client: () => new Cluster(nodes.map((n) => ({ host: n.host, port: n.port }))),
    close: async () => {
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
}
