import { afterAll, beforeAll } from '@jest/globals';
import type pg from 'pg';
import { startPostgres, type PostgresHandle } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { postgresBackend } from './postgres-support.js';

// The same suite on PostgreSQL: the SQL functions keep the Redis scripts' contract, state for state.
let server: PostgresHandle;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPostgres();
  pool = server.pool({ max: 20 });
}, 30_000);

afterAll(async () => {
  await pool.end();
  await server.close();
});

describeCoordinatorBehaviour(
  'PostgreSQL',
  postgresBackend(() => pool),
);
