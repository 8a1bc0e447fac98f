import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startPostgres, startPrivatePostgres, type PostgresHandle } from '../../src/index.js';

describe('startPrivatePostgres', () => {
  let server: PostgresHandle;
  beforeAll(async () => {
    server = await startPrivatePostgres();
  }, 30_000);
  afterAll(async () => {
    await server.close();
  });

  it('keeps committed rows across a SIGKILL of every process and a restart (crash recovery)', async () => {
    const before = server.client();
    await before.connect();
    await before.query('CREATE TABLE survives (v text)');
    await before.query("INSERT INTO survives VALUES ('committed')");
    await before.query('BEGIN');
    await before.query("INSERT INTO survives VALUES ('uncommitted')");
    before.on('error', () => undefined);
    await server.control!.kill();
    await before.end().catch(() => undefined);

    await server.control!.start();
    const after = server.client();
    await after.connect();
    expect((await after.query('SELECT v FROM survives')).rows).toEqual([{ v: 'committed' }]);
    await after.end();
  }, 30_000);

  it('pause: an open connection gets no answer until resume', async () => {
    const client = server.client();
    await client.connect();
    server.control!.pause();
    let answered = false;
    const query = client.query('SELECT 1 AS one').then((r) => ((answered = true), r.rows));
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    server.control!.resume();
    await expect(query).resolves.toEqual([{ one: 1 }]);
    await client.end();
  });

  it('creates a fresh database on that server for the suite and drops it on close', async () => {
    const previous = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = server.url;
    let suite: PostgresHandle;
    try {
      suite = await startPostgres();
    } finally {
      if (previous === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previous;
    }
    expect(suite.source).toBe('env');
    expect(suite.database).toMatch(/^retry_safe_test_[0-9a-f]{12}$/);
    const pool = suite.pool();
    expect((await pool.query('SELECT current_database() AS db')).rows).toEqual([{ db: suite.database }]);
    await pool.end();

    await suite.close();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [suite.database]);
    await admin.end();
    expect(rows).toEqual([]);
  });
});
