import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { waitFor } from './wait.js';

/** Options for {@link startServiceProcess}. */
export interface ServiceProcessOptions {
  /** Name used as the log prefix. */
  name: string;
  /** Path of the built entry point, e.g. `apps/payments/dist/main.js`. */
  entry: string;
  /** Port the service listens on; `/health` is polled there. */
  port: number;
  /**
   * The port of its admin listener (`ADMIN_PORT`), where its `/__*` routes are served when they are not on `port`
   * (the gateway's). @default `port`
   */
  adminPort?: number;
  /** Environment added to the current one. */
  env?: Record<string, string>;
  /** Options for node itself, before the entry (`--cpu-prof`, which NODE_OPTIONS may not carry). @default none */
  nodeArgs?: readonly string[];
  /**
   * Print the service's output, prefixed with its name.
   * @default process.env.E2E_LOGS === '1'
   */
  logs?: boolean;
  /** @default '/health' */
  healthPath?: string;
  /**
   * How long the start may take: a stack starts four to six of these at once on a small machine, and a start that
   * times out is a failed test that says nothing about the code.
   * @default 45_000
   */
  startTimeoutMs?: number;
  /**
   * Start it as its `start` script does, with the telemetry hook (`--import @retry-safe/app-shell/otel`, resolved
   * from the entry's own package): traced, and exporting spans when its env sets `OTEL_EXPORTER_OTLP_ENDPOINT`.
   * @default true
   */
  telemetry?: boolean;
}

/** The telemetry hook as the app at `entry` resolves it (its own dependency on the app shell). */
export function telemetryHookFor(entry: string): string {
  return pathToFileURL(createRequire(entry).resolve('@retry-safe/app-shell/otel')).href;
}

/** A service running as a child process, so a test can SIGKILL and restart it like a crash. */
export interface ServiceProcess {
  readonly name: string;
  readonly url: string;
  /**
   * The base URL of its `/__*` routes (`/__faults`, `/__config`, `/__requests`): its admin listener when it has one,
   * else {@link ServiceProcess.url}. The one place callers of those routes find it.
   */
  readonly adminUrl: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Sends a signal and waits for the exit (SIGKILL is a crash: no shutdown hooks run). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the process again with the same options, after it exited. */
  start(): Promise<void>;
  /** Everything it printed, for assertions on logs. */
  output(): string;
}

/** Starts a built service in a child process and waits until its health endpoint answers 200. */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const { name, entry, port, healthPath = '/health', startTimeoutMs = 45_000 } = options;
  const logs = options.logs ?? process.env['E2E_LOGS'] === '1';
  let child: ChildProcess | undefined;
  let buffer = '';
  const url = `http://127.0.0.1:${port}`;
  const args = options.telemetry === false ? [entry] : ['--import', telemetryHookFor(entry), entry];

  const start = async (): Promise<void> => {
    const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
      env: { ...process.env, NODE_OPTIONS: '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString();
      buffer += text;
      if (logs) for (const line of text.split('\n')) if (line) process.stdout.write(`[${name}] ${line}\n`);
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    // A process that exits before it is healthy (a bad setting, a port taken) fails the start at once, with all it
    // printed (`close` comes after its pipes are drained), instead of at the end of the start timeout.
    const gone = new AbortController();
    const onClose = (code: number | null, signal: NodeJS.Signals | null): void =>
      gone.abort(new Error(`${name} exited with ${code ?? signal} before it was healthy:\n${buffer}`));
    proc.once('close', onClose);
    try {
      await waitFor(
        `${name} at ${url}${healthPath}`,
        async () => {
          const res = await fetch(`${url}${healthPath}`);
          if (res.status !== 200) throw new Error(`${name} health ${res.status}`);
        },
        { timeoutMs: startTimeoutMs, intervalMs: 50, signal: gone.signal },
      );
    } catch (error) {
      proc.kill('SIGKILL');
      throw error;
    } finally {
      proc.off('close', onClose);
    }
  };

  await start();
  return {
    name,
    url,
    adminUrl: `http://127.0.0.1:${options.adminPort ?? port}`,
    port,
    get pid() {
      return child?.pid;
    },
    kill: async (signal: NodeJS.Signals = 'SIGTERM') => {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill(signal);
      await exited;
    },
    start,
    output: () => buffer,
  };
}
