import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { dockerAnswers } from './docker.js';
import { freePort } from './free-port.js';
import { initDataDir } from './postgres-data-dir.js';
import { Postmaster, serverArgs } from './postgres-postmaster.js';
import { containerControl, type ServerControl } from './server-control.js';

const run = promisify(execFile);

/** A PostgreSQL database a test talks to; `control` is present when the test may stop, pause, kill or restart it. */
export interface PostgresHandle {
  /** `postgres://user@host:port/database` of the test's own database. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** Where this PostgreSQL came from. */
  readonly source: 'env' | 'testcontainers' | 'initdb';
  /** Present for a server this process owns (private cluster or container). */
  readonly control?: PostgresControl;
  /** A new pool on the test's database (errors of idle connections ignored); the caller ends it. */
  pool(config?: pg.PoolConfig): pg.Pool;
  /** A new, unconnected client on the test's database; the caller ends it. */
  client(config?: pg.ClientConfig): pg.Client;
  /** Drops the database (`DATABASE_URL`) or stops and removes the server. */
  close(): Promise<void>;
}

/**
 * Operations on a PostgreSQL the test owns. `stop` is a fast shutdown (SIGINT: sessions are ended, committed data
 * kept); `start` after `kill` runs crash recovery; `pause` and `resume` reach the server and every backend.
 */
export interface PostgresControl extends ServerControl {
  /** SIGKILL to the server and every backend: no shutdown, uncommitted transactions are lost. */
  kill(): Promise<void>;
}

/** Options for {@link startPostgres}. */
export interface StartPostgresOptions {
  /**
   * The test needs to stop, pause, kill or restart the server: never use `DATABASE_URL`.
   * @default false
   */
  controllable?: boolean;
}

/**
 * A real PostgreSQL for a test, in this order: `DATABASE_URL` if set (a fresh database created on that server for
 * this suite, dropped by `close`); else testcontainers (`postgres:17-alpine`) where a Docker engine answers; else a
 * private cluster of the distribution's binaries (`initdb` + `postgres` on a free port in a temporary directory).
 * A `controllable` server is always a private cluster when the binaries exist (it starts in well under a second,
 * keeps its port across restarts and can be paused with SIGSTOP), else a container.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresHandle> {
  const fromEnv = process.env['DATABASE_URL'];
  if (fromEnv && !options.controllable) return freshDatabase(fromEnv);
  if (!options.controllable && (await dockerAnswers())) {
    try {
      return await startContainer();
    } catch {
      // An engine that answers a ping but cannot run containers: fall through to the binaries.
    }
  }
  const binaries = await postgresBinaries();
  if (binaries) return startPrivatePostgres({ bin: binaries });
  if (await dockerAnswers()) return startContainer();
  throw new Error(
    'startPostgres: no DATABASE_URL, no Docker engine, and no initdb/postgres binaries (PATH or /usr/lib/postgresql/*/bin)',
  );
}

function handle(
  url: string,
  source: PostgresHandle['source'],
  control: PostgresControl | undefined,
  close: () => Promise<void>,
): PostgresHandle {
  const parsed = new URL(url);
  return {
    url,
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    source,
    ...(control ? { control } : {}),
    pool: (config) => {
      const pool = new pg.Pool({ connectionString: url, ...config });
      // An idle connection the server ends (stopped, killed, or shut down while pool.end() is still closing its
      // sockets) is dropped by the pool and reported here; without a listener that report would crash the test.
      pool.on('error', () => undefined);
      return pool;
    },
    client: (config) => new pg.Client({ connectionString: url, ...config }),
    close,
  };
}

/** Creates `retry_safe_test_<random>` on the server of `serverUrl`; `close` drops it (ending its sessions). */
async function freshDatabase(serverUrl: string): Promise<PostgresHandle> {
  const database = `retry_safe_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${database}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return handle(url.toString(), 'env', undefined, () =>
    admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  );
}

/** The directory holding `initdb` and `postgres`: PATH first, else the newest /usr/lib/postgresql/<major>/bin. */
export async function postgresBinaries(): Promise<string | undefined> {
  const onPath = await run('sh', ['-c', 'command -v initdb']).then(
    ({ stdout }) => stdout.trim(),
    () => '',
  );
  if (onPath) return onPath.slice(0, onPath.lastIndexOf('/'));
  const root = '/usr/lib/postgresql';
  const majors = await readdir(root).catch(() => [] as string[]);
  for (const major of majors.sort((a, b) => Number(b) - Number(a))) {
    const bin = join(root, major, 'bin');
    if (
      await access(join(bin, 'initdb')).then(
        () => true,
        () => false,
      )
    )
      return bin;
  }
  return undefined;
}

/** Options for {@link startPrivatePostgres}. */
export interface PrivatePostgresOptions {
  /** Directory of `initdb` and `postgres`. @default what {@link postgresBinaries} finds */
  bin?: string;
  /**
   * `fsync` on, as a production server runs (each commit waits for the disk). Off by default: tests only kill
   * processes, never the kernel, so committed data survives without it.
   * @default false
   */
  durable?: boolean;
}

/**
 * A fresh cluster in a temporary directory (a copy of the template, postgres-data-dir.ts), then the server on a free
 * port of 127.0.0.1; trust auth.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PostgresHandle> {
  const binDir = options.bin ?? (await postgresBinaries());
  if (!binDir) throw new Error('startPrivatePostgres: no initdb found (PATH or /usr/lib/postgresql/*/bin)');
  const { dir, data, as } = await initDataDir(binDir);
  const postmaster = new Postmaster({
    binDir,
    dir,
    port: await freePort(),
    args: (port) => serverArgs(data, port, dir, options),
    spawnOptions: as,
  });
  const control: PostgresControl = {
    stop: () => postmaster.end('SIGINT'),
    start: () => postmaster.start(),
    restart: async () => {
      await postmaster.end('SIGINT');
      await postmaster.start();
    },
    kill: () => postmaster.end('SIGKILL'),
    pause: () => postmaster.signalAll('SIGSTOP'),
    resume: () => postmaster.signalAll('SIGCONT'),
  };

  await postmaster.start();
  return handle(postmaster.url, 'initdb', control, async () => {
    await postmaster.end('SIGINT');
    await rm(dir, { recursive: true, force: true });
  });
}

async function startContainer(): Promise<PostgresHandle> {
  // Loaded only here: testcontainers is optional and needs a Docker engine.
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:17-alpine').start();
  const control: PostgresControl = {
    ...containerControl(container, 'PostgreSQL'),
    kill: async () => {
      await container.exec(['sh', '-c', 'kill -9 1']);
    },
  };

  return handle(container.getConnectionUri(), 'testcontainers', control, async () => {
    await container.stop();
  });
}
