import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { childrenOf, trySignal } from './process-tree.js';
import { waitFor } from './wait.js';

/** What a private server needs of `postgres` (`initdb` made its data directory). */
export interface PostmasterOptions {
  /** Directory of the `postgres` binary. */
  readonly binDir: string;
  /** Its working directory, where the socket lives. */
  readonly dir: string;
  readonly port: number;
  /** The command line for the port. */
  readonly args: (port: number) => string[];
  /** The user and group it runs as (the data directory's owner). */
  readonly spawnOptions: Pick<SpawnOptions, 'uid' | 'gid'>;
}

/** The postmaster's command line: loopback only, its socket in `dir`. */
export function serverArgs(
  data: string,
  port: number,
  dir: string,
  options: { durable?: boolean },
): string[] {
  return [
    ...['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'],
    // Durability against a process crash needs no fsync (the kernel keeps the pages); tests never crash the kernel.
    ...['-c', `fsync=${options.durable ? 'on' : 'off'}`],
    ...['-c', 'max_connections=300', '-c', 'log_min_messages=fatal'],
  ];
}

/** A private PostgreSQL server process the test starts, stops, kills, pauses and restarts on one port. */
export class Postmaster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  readonly url: string;
  private child: ChildProcess | undefined;

  constructor(private readonly options: PostmasterOptions) {
    this.url = `postgres://postgres@127.0.0.1:${options.port}/postgres`;
  }

  /** Spawns the server and resolves once it runs a query. */
  async start(): Promise<void> {
    const { binDir, dir, port, args, spawnOptions } = this.options;
    const proc = spawn(join(binDir, 'postgres'), args(port), { ...spawnOptions, cwd: dir, stdio: 'ignore' });
    this.child = proc;
    proc.unref();
    await waitFor(`postgres on port ${port}`, async () => {
      if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode}`);
      await answersQueries(this.url);
    });
  }

  /** Sends `signal` (SIGINT: a fast shutdown; SIGKILL: a crash) and resolves once the server and its backends are gone. */
  async end(signal: NodeJS.Signals): Promise<void> {
    const proc = this.child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = exited(proc);
    const backends = childrenOf(proc.pid!);
    proc.ref();
    this.signalAll(signal);
    this.signalAll('SIGCONT');
    await gone;
    // Backends of a killed server exit on their own once they notice; wait so a restart finds no old shared memory.
    await waitFor('the backends to exit', async () => {
      if (backends.some((backend) => trySignal(backend, 0))) throw new Error('backends still running');
    });
    this.child = undefined;
  }

  /** Sends `signal` to the postmaster, then to each of its children. */
  signalAll(signal: NodeJS.Signals): void {
    // Backends call setsid(), so no process group holds them all: signal the postmaster first (it forks no more
    // once stopped or dead), then each of its children.
    const pid = this.child?.pid;
    if (pid === undefined) return;
    trySignal(pid, signal);
    for (const backend of childrenOf(pid)) trySignal(backend, signal);
  }
}

function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** Resolves once the server at `url` runs a query; rejects (for `waitFor` to retry) until then. */
async function answersQueries(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await probe.connect();
    await probe.query('SELECT 1');
  } finally {
    await probe.end().catch(() => undefined);
  }
}
