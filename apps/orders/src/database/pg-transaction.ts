import type pg from 'pg';

/** A statement parsed once per pooled connection (node-postgres' named statements); `values` per call. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * Runs `work` in a transaction on one pooled connection: BEGIN, `work(client)`, COMMIT; ROLLBACK when it throws.
 * For the hot path of a payment, where every statement is a {@link NamedStatement} (the records' too: the
 * idempotency store names its statements on a node-postgres client), instead of a Kysely transaction, which
 * compiles its builder on every call and sends unnamed statements that PostgreSQL parses and plans every time.
 * A connection whose ROLLBACK failed is destroyed, not given back to the pool.
 */
export async function withPgTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
