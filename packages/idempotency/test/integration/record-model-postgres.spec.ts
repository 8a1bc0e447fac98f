import { afterAll, beforeAll } from '@jest/globals';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { describeRecordModel, MODEL_TIMES, MODEL_UNIT_MS } from './record-model.behaviour.js';
import { freshTable, suitePostgres } from './postgres-support.js';
import { postgresSystem } from './record-systems.js';

// The model-based property test on PostgreSQL, standalone (with the sweep) and inside one caller's transaction
// per run (rolled back after it). PostgreSQL's client never resends: a lost reply is a call the caller makes again.
const postgres = suitePostgres();

const suite = {} as { table: string; store: PostgresIdempotencyStore };
beforeAll(async () => {
  suite.table = freshTable();
  suite.store = new PostgresIdempotencyStore(postgres.pool, { table: suite.table, sweepIntervalMs: 0 });
  await suite.store.migrate();
});
afterAll(async () => {
  await suite.store.close();
});

const common = { times: MODEL_TIMES, unitMs: MODEL_UNIT_MS };

describeRecordModel('PostgreSQL, standalone', {
  runs: 200,
  sweeps: true,
  withSystem: (run) =>
    run(
      postgresSystem({
        ...common,
        store: suite.store,
        db: postgres.pool,
        table: suite.table,
        sweep: () => suite.store.sweepExpired(),
      }),
    ),
});

describeRecordModel("PostgreSQL, in the caller's transaction", {
  runs: 200,
  withSystem: async (run) => {
    const client = await postgres.pool.connect();
    try {
      await client.query('BEGIN');
      const store = suite.store.inTransaction(client);
      await run(postgresSystem({ ...common, store, db: client, table: suite.table, inTransaction: true }));
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  },
});
