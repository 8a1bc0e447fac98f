import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, postgresBinaries } from '../../src/index.js';
import { initDataDir, type DataDir } from '../../src/postgres-data-dir.js';
import { Postmaster, serverArgs } from '../../src/postgres-postmaster.js';

/** Runs `queries` in order on a server on `dataDir` (as startPrivatePostgres runs it), then stops it. */
async function rowsOf(binDir: string, dataDir: DataDir, queries: string[]): Promise<unknown[][]> {
  const { dir, data, as } = dataDir;
  const postmaster = new Postmaster({
    binDir,
    dir,
    port: await freePort(),
    args: (port) => serverArgs(data, port, dir, {}),
    spawnOptions: as,
  });
  await postmaster.start();
  const client = new pg.Client({ connectionString: postmaster.url });
  try {
    await client.connect();
    const rows: unknown[][] = [];
    for (const sql of queries) rows.push((await client.query(sql)).rows);
    return rows;
  } finally {
    await client.end();
    await postmaster.end('SIGINT');
  }
}

describe('initDataDir: private clusters copied from one template', () => {
  let binDir: string;
  // A template root of its own, so the shared template of other suites is never touched; the server's user
  // (postgres, under root) must be able to enter it.
  let root: string;
  const made: DataDir[] = [];
  const fresh = async (): Promise<DataDir> => {
    const dataDir = await initDataDir(binDir, root);
    made.push(dataDir);
    return dataDir;
  };
  const templates = async (): Promise<string[]> =>
    (await readdir(root)).filter((name) => name.startsWith('retry-safe-pg-template-'));

  beforeAll(async () => {
    const found = await postgresBinaries();
    if (found === undefined)
      throw new Error('no initdb/postgres binaries (PATH or /usr/lib/postgresql/*/bin)');
    binDir = found;
    root = await mkdtemp(join(tmpdir(), 'retry-safe-pg-root-'));
    await chmod(root, 0o755);
  });
  afterAll(async () => {
    for (const { dir } of made) await rm(dir, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  });

  it('makes the template once; each cluster is a copy of its own, written apart from the others', async () => {
    const first = await fresh();
    const [template] = await templates();
    const madeAt = (await stat(join(root, template!, 'global', 'pg_control'))).mtimeMs;
    const second = await fresh();

    expect(await templates()).toEqual([template]);
    expect((await stat(join(root, template!, 'global', 'pg_control'))).mtimeMs).toBe(madeAt);
    expect(second.data).not.toBe(first.data);
    const tables = "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'";
    expect(await rowsOf(binDir, first, ['CREATE TABLE only_here (v int)', tables])).toEqual([[], [{ n: 1 }]]);
    expect(await rowsOf(binDir, second, [tables])).toEqual([[{ n: 0 }]]);
  }, 60_000);

  it('makes the template again when a cleaner took files of it (its control file among them)', async () => {
    await fresh();
    const [template] = await templates();
    await rm(join(root, template!, 'global'), { recursive: true, force: true });

    const after = await fresh();

    expect(await templates()).toEqual([template]);
    await expect(stat(join(root, template!, 'global', 'pg_control'))).resolves.toBeDefined();
    expect(await rowsOf(binDir, after, ['SELECT 1 AS one'])).toEqual([[{ one: 1 }]]);
  }, 60_000);
});
