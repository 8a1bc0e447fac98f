#!/usr/bin/env node
// `pnpm test:example [nest<N>-ioredis<M> ...]`: installs examples/nest-charges the way a user would, from the
// packed tarball of @retry-safe/idempotency with a plain `npm install` (no flags: a peer range that refuses the
// installed Nest or ioredis fails here, as it would for the user), and runs its own test against a real Redis.
// Each entry of the matrix is a copy of the example in a temp dir, installed with those majors of Nest and
// ioredis; the default covers every supported major of each at least once. All entries run side by side (npm
// spends most of its time waiting for the registry); everything is removed at the end.
//
// Redis: the tests' own `startRedis` (REDIS_URL if set, else a container or a private `redis-server`, closed at
// the end). The example's test uses a prefix of its own and deletes its records.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { startRedis } from '@retry-safe/testing';

const root = fileURLToPath(new URL('..', import.meta.url));
const example = join(root, 'examples/nest-charges');
const library = join(root, 'packages/idempotency');
const DEFAULT_MATRIX = ['nest12-ioredis6', 'nest11-ioredis5'];

const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const matrix = (process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_MATRIX).map((name) => {
  const match = /^nest(\d+)-ioredis(\d+)$/.exec(name);
  if (match === null) {
    console.error(`example-nest: "${name}" is not nest<major>-ioredis<major> (e.g. ${DEFAULT_MATRIX[0]})`);
    process.exit(2);
  }
  return { name, nest: match[1], ioredis: match[2] };
});

// npm must see the user's configuration, not the one pnpm hands to the scripts it runs (npm_config_*).
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/**
 * Runs a command; resolves with its output (stdout and stderr interleaved), rejects with it on failure. A command
 * still running after `timeout` ms (a test that leaves a connection open never exits) is stopped with SIGTERM.
 */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { timeout: 300_000, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')}: ${signal ?? `exit ${code}`}\n${output}`));
    });
  });
}

function installedVersion(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Copies the example, installs it with the entry's majors and the tarball, runs its test. */
async function runEntry(work, tarball, redisUrl, { name, nest, ioredis }) {
  const since = performance.now();
  const dir = join(work, name);
  cpSync(example, dir, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|dist|package-lock\.json)$/.test(source),
  });
  const specs = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express'].map((p) => `${p}@^${nest}`);
  await run('npm', ['install', tarball, ...specs, `ioredis@^${ioredis}`], { cwd: dir, env: npmEnv });
  const versions = ['@nestjs/core', 'ioredis'].map((p) => `${p} ${installedVersion(dir, p)}`).join(', ');
  const output = await run('npm', ['test'], {
    cwd: dir,
    env: { ...npmEnv, REDIS_URL: redisUrl },
    timeout: 120_000,
  });
  const passed = Number(/^ℹ pass (\d+)/m.exec(output)?.[1] ?? 0);
  return { passed, line: `${name}: ${versions}: ${passed} tests passed (${seconds(since)})` };
}

const work = mkdtempSync(join(tmpdir(), 'retry-safe-example-'));
let redis;
const cleanUp = async () => {
  await redis?.close();
  rmSync(work, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

let failed = false;
let passed = 0;
let failures = 0;
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
  // The tests' one way to a Redis: REDIS_URL, else a container or a private redis-server (closed at the end).
  redis = await startRedis();
  const results = await Promise.allSettled(matrix.map((entry) => runEntry(work, tarball, redis.url, entry)));
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') {
      passed += result.value.passed;
      console.log(`example-nest: ${result.value.line}`);
    } else {
      failed = true;
      const { message } = result.reason;
      passed += Number(/^ℹ pass (\d+)/m.exec(message)?.[1] ?? 0);
      // A run that stopped before its tests (install, compile) counts as one failure.
      failures += Number(/^ℹ fail (\d+)/m.exec(message)?.[1] ?? 1);
      console.error(`example-nest: ${matrix[i].name} FAILED: ${message}`);
    }
  }
} catch (error) {
  failed = true;
  failures += 1;
  console.error(`example-nest: ${error.message}`);
} finally {
  await cleanUp();
}
console.log(`example-nest: ${failed ? 'FAILED' : 'passed'} in ${seconds(started)}`);
// In Jest's words, so CI's closing count over every suite includes these.
console.log(`Tests:       ${passed} passed, ${failures} failed`);
process.exit(failed ? 1 : 0);
