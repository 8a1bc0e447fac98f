import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { dockerAnswers } from './docker.js';
import { containerControl, type ServerControl } from './server-control.js';
import { freePort } from './free-port.js';
import { waitFor } from './wait.js';

/** A Redis a test talks to; `control` is present when the test may stop, pause or restart it. */
export interface RedisHandle {
  /** `redis://host:port` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Where this Redis came from. */
  readonly source: 'env' | 'testcontainers' | 'redis-server';
  /** Present for a Redis this process owns (private redis-server or container). */
  readonly control?: RedisControl;
  /** A new ioredis client for this Redis; the caller closes it. */
  client(options?: RedisOptions): Redis;
  /** Stops and removes what was started (no-op for `REDIS_URL`). */
  close(): Promise<void>;
}

/** Operations on a Redis the test owns (`start` after `stop`: with `appendonly` the data survives). */
export type RedisControl = ServerControl;

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /**
   * The test needs to stop, pause or restart Redis: never use `REDIS_URL`.
   * @default false
   */
  controllable?: boolean;
  /**
   * `appendonly yes` + `appendfsync always`, so a restart keeps every acknowledged write.
   * @default false
   */
  appendOnly?: boolean;
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: readonly string[];
}

/**
 * A real Redis for a test, in this order: `REDIS_URL` if set; else testcontainers where a Docker engine answers;
 * else a private `redis-server` on a free port. A test that must stop, pause or restart Redis (`controllable`,
 * `appendOnly`, `args`) gets a private `redis-server` when the binary exists (it starts in milliseconds, keeps its
 * port across restarts and can be paused with SIGSTOP), else a container.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisHandle> {
  const fromEnv = process.env['REDIS_URL'];
  const needsControl = Boolean(options.controllable || options.appendOnly || options.args);
  if (fromEnv && !needsControl) {
    const url = new URL(fromEnv);
    return handle(fromEnv, url.hostname, Number(url.port || 6379), 'env', undefined, async () => {});
  }
  if (!needsControl && (await dockerAnswers())) {
    try {
      return await startContainer(options);
    } catch {
      // An engine that answers a ping but cannot run containers: fall through to redis-server.
    }
  }
  if (await hasRedisServer()) return startPrivateRedisServer(options);
  return startContainer(options);
}

async function hasRedisServer(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    probe.on('error', () => resolve(false));
    probe.on('exit', (code) => resolve(code === 0));
  });
}

function handle(
  url: string,
  host: string,
  port: number,
  source: RedisHandle['source'],
  control: RedisControl | undefined,
  close: () => Promise<void>,
): RedisHandle {
  return {
    url,
    host,
    port,
    source,
    ...(control ? { control } : {}),
    client: (opts) => new Redis({ host, port, lazyConnect: false, ...opts }),
    close,
  };
}

/** The command line of a private server: loopback only, no RDB snapshots, AOF only when asked for. */
function serverArgs(port: number, dir: string, options: StartRedisOptions): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--logfile',
    '',
    '--loglevel',
    'warning',
    ...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ...(options.args ?? []),
  ];
}

/** Starts `redis-server` on a free port in a private data dir. */
export async function startPrivateRedisServer(options: StartRedisOptions = {}): Promise<RedisHandle> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'retry-safe-redis-'));
  const args = serverArgs(port, dir, options);
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child = proc;
    proc.unref();
    await waitFor(`redis-server on port ${port}`, async () => {
      if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
      await ping(port);
    });
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // Keep the event loop alive until it is gone (the child is unref'd so a forgotten server never blocks exit).
    proc.ref();
    proc.kill(proc.killed ? 'SIGKILL' : 'SIGTERM');
    // A paused server cannot handle SIGTERM until it continues.
    proc.kill('SIGCONT');
    await exited;
  };
  const control: RedisControl = {
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    pause: () => {
      child?.kill('SIGSTOP');
    },
    resume: () => {
      child?.kill('SIGCONT');
    },
  };

  await start();
  return handle(`redis://127.0.0.1:${port}`, '127.0.0.1', port, 'redis-server', control, async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });
}

async function startContainer(options: StartRedisOptions): Promise<RedisHandle> {
  // Loaded only here: testcontainers is optional and needs a Docker engine.
  const { RedisContainer } = await import('@testcontainers/redis');
  const command = [
    'redis-server',
    '--save',
    '',
    ...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ...(options.args ?? []),
  ];
  const container = await new RedisContainer('redis:7-alpine').withCommand(command).start();
  const host = container.getHost();
  const port = container.getPort();
  const control: RedisControl = containerControl(container, 'Redis');

  return handle(`redis://${host}:${port}`, host, port, 'testcontainers', control, async () => {
    await container.stop();
  });
}

/**
 * One PING over a raw socket; resolves on +PONG. A plain socket rather than an ioredis client: a failed ioredis
 * connect leaves a timer behind that keeps a short-lived process alive for seconds. While loading its AOF, Redis
 * answers -LOADING, which counts as not ready.
 */
async function ping(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1_000);
    let reply = '';
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.includes('\r\n')) return;
      socket.destroy();
      if (reply.startsWith('+PONG')) resolve();
      else reject(new Error(`redis-server answered ${reply.trim()}`));
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error('PING timed out'));
    });
    socket.on('error', reject);
  });
}
