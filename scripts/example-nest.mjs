#!/usr/bin/env node
// `pnpm test:example [entry ...]`: installs the example apps the way a user would, from the packed tarball of
// @retry-safe/idempotency with a plain `npm install` (no flags: a peer range that refuses the installed Nest,
// ioredis or pg fails here, as it would for the user), and runs each app's own node:test suite over real HTTP or
// real brokers.
//
// The matrix: examples/nest-charges (ESM, Nest 12, ioredis 6, pg 8) on each platform with each store, chosen by its
// PLATFORM and STORE; examples/nest-commonjs (a Nest 11 app as `nest new` makes it: CommonJS, so it loads the
// library through require(); Express, ioredis 5); examples/nest-microservices (message and event handlers on
// NATS and on RabbitMQ, chosen by its TRANSPORT); examples/nest-graphql (mutations on Apollo Server, Express).
// Each app is copied to a temp dir, installed and compiled once; its entries then run side by side, as do the
// installs (npm spends most of its time waiting for the registry). The tarball's manifest is checked first
// (scripts/lint/packed-manifest.mjs). Everything is removed at the end.
//
// Stores: Redis from the tests' own `startRedis` (REDIS_URL if set, else a container or a private `redis-server`);
// PostgreSQL from `startPostgres`, a fresh database per entry, dropped at the end, on DATABASE_URL's server if
// set, else on the local server at 127.0.0.1:5432 if one answers, else on a private cluster. Brokers: NATS_URL
// and AMQP_URL, else the local ones (`scripts/setup.sh test` starts them); an entry whose broker does not answer
// fails before its tests, naming it. Each suite keeps to its own subjects, queues and Redis prefix.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { startPostgres, startRedis } from '@retry-safe/testing';
import { packedManifestProblems } from './lint/packed-manifest.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const library = join(root, 'packages/idempotency');
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
/** The brokers' URLs the microservice entries are given (the app's own defaults are these local ones too). */
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The apps, and what each entry's versions line names. */
const APPS = {
  'nest-charges': { versions: ['@nestjs/core'] },
  'nest-commonjs': { versions: ['@nestjs/core', 'ioredis'] },
  'nest-microservices': { versions: ['@nestjs/core', '@nestjs/microservices', 'ioredis'] },
  'nest-graphql': {
    versions: ['@nestjs/core', '@nestjs/graphql', '@nestjs/apollo', '@apollo/server', 'graphql', 'ioredis'],
  },
};
const MATRIX = [
  ...['express', 'fastify'].flatMap((platform) =>
    ['redis', 'postgres'].map((store) => ({
      name: `nest12-${platform}-${store}`,
      app: 'nest-charges',
      store,
      env: { PLATFORM: platform, STORE: store },
      versions: [`@nestjs/platform-${platform}`, store === 'redis' ? 'ioredis' : 'pg'],
    })),
  ),
  { name: 'nest11-commonjs', app: 'nest-commonjs', store: 'redis', env: {}, versions: [] },
  {
    name: 'nest12-nats',
    app: 'nest-microservices',
    store: 'redis',
    broker: { name: 'NATS', url: NATS_URL },
    env: { TRANSPORT: 'nats', NATS_URL },
    versions: ['@nats-io/transport-node'],
  },
  {
    name: 'nest12-rabbitmq',
    app: 'nest-microservices',
    store: 'redis',
    broker: { name: 'RabbitMQ', url: AMQP_URL },
    env: { TRANSPORT: 'rabbitmq', AMQP_URL },
    versions: ['amqplib', 'amqp-connection-manager'],
  },
  { name: 'nest12-graphql', app: 'nest-graphql', store: 'redis', env: {}, versions: [] },
];

const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const matrix =
  process.argv.length > 2
    ? process.argv.slice(2).map((name) => {
        const entry = MATRIX.find((e) => e.name === name);
        if (entry === undefined) {
          console.error(`example-nest: no entry "${name}": ${MATRIX.map((e) => e.name).join(', ')}`);
          process.exit(2);
        }
        return entry;
      })
    : MATRIX;

// npm must see the user's configuration, not the one pnpm hands to the scripts it runs (npm_config_*).
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** The commands still running: their process groups are killed if this script is stopped. */
const running = new Set();

/** SIGKILL to a command's process group (spawned `detached`, so it leads one); gone already is fine. */
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: the group ended on its own.
  }
}

/**
 * Runs a command; resolves with its output (stdout and stderr interleaved), rejects with it on failure. A command
 * still running after `timeout` ms (a test that leaves a connection open never exits) is killed with its whole
 * process group: `npm test` alone would die and leave its `node --test` holding the pipes open.
 */
function run(command, args, { timeout = 300_000, ...options }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    let timedOut = false;
    // Decided after the event loop has read the pipes (CONTRIBUTING, "Conventions"): output that arrived in time
    // counts, and a busy runner does not blame the command for its own lag.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          timedOut = true;
          killGroup(child);
        }),
      timeout,
    );
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve(output);
      else {
        const end = timedOut ? `killed after ${timeout / 1000} s` : (signal ?? `exit ${code}`);
        reject(new Error(`${command} ${args.join(' ')}: ${end}\n${output}`));
      }
    });
  });
}

function installedVersion(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Copies an app, installs it with the tarball and compiles it and its tests (its `pretest`): its dir. */
async function installApp(work, tarball, app) {
  const since = performance.now();
  const dir = join(work, app);
  cpSync(join(root, 'examples', app), dir, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|dist|package-lock\.json)$/.test(source),
  });
  await run('npm', ['install', tarball], { cwd: dir, env: npmEnv });
  await run('npm', ['run', 'pretest'], { cwd: dir, env: npmEnv, timeout: 120_000 });
  console.log(`example-nest: ${app} installed and compiled (${seconds(since)})`);
  return dir;
}

/**
 * Whether a server accepts connections on `host:port`: a developer's local PostgreSQL (whose `postgres` user is
 * taken to have trust auth: a refusal fails the PostgreSQL entries with its message), or a broker.
 */
function answers(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => setImmediate(() => done(false)), 1000);
    const done = (answered) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const count = (output, what) => Number(new RegExp(`^ℹ ${what} (\\d+)`, 'm').exec(output)?.[1] ?? 0);

/** node:test's closing "failing tests" section (the spec reporter's), else the output's last lines. */
function failures(output) {
  const at = output.indexOf('✖ failing tests:');
  return at >= 0 ? output.slice(at) : output.split('\n').slice(-60).join('\n');
}

/**
 * Resolves once the entry's broker (if it has one) accepts connections; rejects naming it otherwise, so the entry
 * fails before its tests instead of each test timing out on its own.
 */
async function brokerUp({ broker }) {
  if (broker === undefined) return;
  const { hostname, port, protocol } = new URL(broker.url);
  const defaultPort = { 'nats:': 4222, 'amqp:': 5672, 'amqps:': 5671 }[protocol];
  if (!(await answers(hostname, Number(port || defaultPort)))) {
    throw new Error(`${broker.name} does not answer at ${broker.url} (scripts/setup.sh test starts it)`);
  }
}

/** Runs one entry's tests in its app's installed dir, with its store. */
async function runEntry(entry, appDir, storeEnv) {
  // Awaited at once: a store or a broker that fails while the app still installs is this entry's failure, not an
  // unhandled rejection.
  const [dir, store] = await Promise.all([appDir, storeEnv, brokerUp(entry)]);
  const env = { ...npmEnv, ...entry.env, ...store };
  const versions = [...APPS[entry.app].versions, ...entry.versions]
    .map((name) => `${name} ${installedVersion(dir, name)}`)
    .join(', ');
  // `--ignore-scripts` skips `pretest` only (npm still runs the script it is asked for): the app was compiled once
  // for all its entries, and two compilers writing one dist/ side by side would race.
  const since = performance.now();
  const output = await run('npm', ['test', '--ignore-scripts'], { cwd: dir, env, timeout: 120_000 }).catch(
    (error) => ({ error }),
  );
  const text = typeof output === 'string' ? output : output.error.message;
  // A test past --test-timeout is "cancelled": a failure here. A run that failed with none counted (a crash at
  // import, killed) counts as one.
  const counted = count(text, 'fail') + count(text, 'cancelled');
  return {
    passed: count(text, 'pass'),
    failed: typeof output === 'string' ? counted : Math.max(counted, 1),
    line: `${entry.name}: ${versions}`,
    took: seconds(since),
    text,
  };
}

const work = mkdtempSync(join(tmpdir(), 'retry-safe-example-'));
const closers = [];
const cleanUp = async () => {
  for (const child of running) killGroup(child);
  await Promise.allSettled(closers.map((close) => close()));
  rmSync(work, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

let passed = 0;
let failed = 0;
try {
  // Built first, so the tarball holds the sources as they are now (`tsc -b` does nothing when they are built).
  await run('pnpm', ['--filter', '@retry-safe/idempotency', '--filter', '@retry-safe/testing', 'build'], {
    cwd: root,
  });
  await run('pnpm', ['pack', '--pack-destination', work], { cwd: library });
  const tarball = join(
    work,
    readdirSync(work).find((file) => file.endsWith('.tgz')),
  );
  const problems = packedManifestProblems(tarball);
  if (problems.length > 0) throw new Error(`the packed manifest:\n${problems.join('\n')}`);

  if (process.env.DATABASE_URL === undefined && matrix.some((e) => e.store === 'postgres')) {
    // startPostgres makes a fresh database on DATABASE_URL's server (and drops it on close).
    if (await answers('127.0.0.1', 5432)) process.env.DATABASE_URL = LOCAL_POSTGRES;
  }
  // Everything below side by side: the installs, the stores, then each entry as soon as its app and store are up.
  // No await until every promise has its handler (runEntry's Promise.all), so no failure goes unhandled.
  const apps = new Map();
  for (const { app } of matrix) if (!apps.has(app)) apps.set(app, installApp(work, tarball, app));
  const redis = matrix.some((e) => e.store === 'redis')
    ? startRedis().then((handle) => (closers.push(() => handle.close()), handle))
    : undefined;
  const storeEnv = (entry) =>
    entry.store === 'redis'
      ? redis.then((handle) => ({ REDIS_URL: handle.url }))
      : startPostgres().then((handle) => {
          closers.push(() => handle.close());
          return { DATABASE_URL: handle.url };
        });

  const results = await Promise.allSettled(matrix.map((e) => runEntry(e, apps.get(e.app), storeEnv(e))));
  const failedOutputs = [];
  for (const [i, result] of results.entries()) {
    const { name } = matrix[i];
    if (result.status === 'rejected') {
      // The app's install or compilation, its store or its broker failed: its entry never ran.
      failed += 1;
      console.error(`example-nest: ${name}: FAILED before its tests: ${failures(result.reason.message)}`);
      continue;
    }
    const { passed: p, failed: f, line, took, text } = result.value;
    passed += p;
    failed += f;
    console.log(`example-nest: ${line}: ${p} passed, ${f} failed (tests ${took})`);
    if (f > 0) failedOutputs.push(`example-nest: ${name}:\n${failures(text)}`);
  }
  for (const output of failedOutputs) console.error(output);
} catch (error) {
  failed += 1;
  console.error(`example-nest: ${error.message}`);
} finally {
  await cleanUp();
}
console.log(`example-nest: ${failed > 0 ? 'FAILED' : 'passed'} in ${seconds(started)}`);
// In Jest's words, so CI's closing count over every suite includes these.
console.log(`Tests:       ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
