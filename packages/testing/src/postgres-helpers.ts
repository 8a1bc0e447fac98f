import pg from 'pg';
import type { PostgresHandle } from './postgres-server.js';

/** BEGIN, `body`, COMMIT on one pooled client (ROLLBACK if `body` throws); the client goes back to the pool. */
export async function withTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Records the text of every statement the pool's clients send from now on (each is one round trip in the extended
 * protocol), for tests and benchmarks that count round trips. Empty the array to start a count.
 */
export function recordStatements(pool: pg.Pool): string[] {
  const statements: string[] = [];
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string };
      statements.push(typeof first === 'string' ? first : first.text);
      return query(...args);
    };
  });
  return statements;
}

/**
 * A pool on `handle`'s database that connects through `via` (a {@link startTcpProxy} in front of the server), so a
 * test can reset, swallow or delay its connections. Like `handle.pool`, it ignores errors of idle connections
 * (`pool.on('error')`); it adds no listener of its own to checked-out clients, so a test sees what its code does.
 */
export function poolThrough(
  handle: PostgresHandle,
  via: { readonly host: string; readonly port: number },
  config: pg.PoolConfig = {},
): pg.Pool {
  const url = new URL(handle.url);
  url.hostname = via.host;
  url.port = String(via.port);
  const pool = new pg.Pool({ connectionString: url.toString(), ...config });
  pool.on('error', () => undefined);
  return pool;
}
