#!/usr/bin/env node
// `pnpm stack`: runs provider-sim, payments, orders and the gateway (and the invoice worker when it is built) from
// the built tree (apps/*/dist/main.js) in one terminal, every output line prefixed with its service (one colour per
// service on a terminal). The services write JSON lines; they are printed readably through pino-pretty (time,
// level, context: message, then the line's fields, requestId and trace_id among them); STACK_LOG_FORMAT=json
// prints them as written (for jq). Ctrl-C or
// SIGTERM stops them all (SIGTERM each: they drain; SIGKILL only once an orderly stop would be over). A service that
// exits on its own (a crash, a kill -9) is logged and started again after 1 s, so a crash can be watched.
//
// Redis and PostgreSQL are not started here: point REDIS_URL at a Redis (default redis://127.0.0.1:6379), e.g.
// `redis-server`, and DATABASE_URL at a PostgreSQL database for orders (default
// postgres://postgres@127.0.0.1:5432/retry_safe, created if it is missing; orders migrates it). Every variable of
// the environment is passed to every service; the ones below get defaults so the services find each other.
/* global fetch */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout } from 'node:timers';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;

// The two demo tenants (docs/configuration.md): `Authorization: Bearer demo-token-tenant-a` is tenant A.
const DEMO_API_TOKENS =
  'demo-token-tenant-a=a0000000-0000-4000-8000-00000000000a,demo-token-tenant-b=b0000000-0000-4000-8000-00000000000b';

// Orders and payments accept only callers holding it. The demo's published value (docker-compose.yml and the
// scenario runner use the same), so `pnpm scenarios` can call payments directly; set INTERNAL_TOKEN for your own.
const internalToken = env.INTERNAL_TOKEN ?? 'demo-internal-token-replace-me-0123456789';
// SIGKILL only after the longest orderly stop: an HTTP drain, then (the worker) its running sends, plus a margin.
const stopGraceMs =
  Number(env.DRAIN_TIMEOUT_MS ?? 10_000) + Number(env.WORKER_SHUTDOWN_TIMEOUT_MS ?? 20_000) + 5_000;

const ports = {
  gateway: env.GATEWAY_PORT ?? '3000',
  orders: env.ORDERS_PORT ?? '3001',
  payments: env.PAYMENTS_PORT ?? '3002',
  provider: env.PROVIDER_PORT ?? '3003',
  worker: env.WORKER_PORT ?? '3004',
};
const local = (port) => `http://127.0.0.1:${port}`;
const shared = {
  REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  DATABASE_URL: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/retry_safe',
  FAULTS_ENABLED: env.FAULTS_ENABLED ?? 'false',
  GATEWAY_PORT: ports.gateway,
  ORDERS_PORT: ports.orders,
  PAYMENTS_PORT: ports.payments,
  PROVIDER_PORT: ports.provider,
  WORKER_PORT: ports.worker,
  ORDERS_URL: env.ORDERS_URL ?? local(ports.orders),
  PAYMENTS_URL: env.PAYMENTS_URL ?? local(ports.payments),
  PROVIDER_URL: env.PROVIDER_URL ?? local(ports.provider),
  MAIL_PROVIDER_URL: env.MAIL_PROVIDER_URL ?? local(ports.provider),
  API_TOKENS: env.API_TOKENS ?? DEMO_API_TOKENS,
  INTERNAL_TOKEN: internalToken,
};

const services = [
  { name: 'provider', app: 'provider-sim', port: ports.provider },
  { name: 'payments', app: 'payments', port: ports.payments },
  { name: 'orders', app: 'orders', port: ports.orders },
  { name: 'gateway', app: 'gateway', port: ports.gateway },
  { name: 'worker', app: 'invoice-worker', port: ports.worker, optional: true },
]
  .map((service) => ({ ...service, entry: `${root}apps/${service.app}/dist/main.js` }))
  .filter((service) => !service.optional || existsSync(service.entry));

const missing = services.filter((service) => !existsSync(service.entry));
if (missing.length > 0) {
  console.error(
    `Not built: ${missing.map((service) => service.entry).join(', ')}\nRun \`pnpm build\` first.`,
  );
  process.exit(1);
}

/** Creates the database of DATABASE_URL if it does not exist (connected to the server's `postgres` database). */
async function ensureDatabase(url) {
  // node-postgres is a dependency of orders, not of the root: load it from there.
  const pg = createRequire(`${root}apps/orders/package.json`)('pg');
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  try {
    await client.connect();
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      console.log(`stack: created database ${name}`);
    }
  } catch (error) {
    // Orders reports the database itself when it starts; say here what this script tried.
    console.error(`stack: could not check or create database ${name} (${error.message})`);
  } finally {
    await client.end().catch(() => {});
  }
}

await ensureDatabase(shared.DATABASE_URL);

const colors = process.stdout.isTTY ? [36, 33, 35, 32, 34] : [];

/** Each JSON line as pino-pretty prints it (other lines unchanged), unless STACK_LOG_FORMAT=json. */
function lineFormatter() {
  if (env.STACK_LOG_FORMAT === 'json') return (line) => line;
  // A dev dependency of the scripts package, not of the root: load it from there.
  const { prettyFactory } = createRequire(`${root}scripts/package.json`)('pino-pretty');
  const pretty = prettyFactory({
    colorize: Boolean(process.stdout.isTTY),
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The prefix names the service; pid and hostname say nothing on one machine.
    ignore: 'service,pid,hostname,context',
    messageFormat: '{if context}{context}: {end}{msg}',
  });
  return (line) => (line.startsWith('{') ? pretty(line).replace(/\n$/, '') : line);
}
const format = lineFormatter();
const width = Math.max(...services.map((service) => service.name.length));
const children = new Map();
let stopping = false;

/** Writes each complete line of a stream with the service's prefix; keeps a partial line until it completes. */
function prefixLines(stream, prefix, out) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) out.write(`${prefix}${format(line)}\n`);
  });
  stream.on('end', () => {
    if (pending) out.write(`${prefix}${format(pending)}\n`);
  });
}

const RESTART_DELAY_MS = 1_000;

/**
 * The telemetry hook as the app resolves it (`--import @retry-safe/app-shell/otel`, what its start script and the
 * image run): traced, spans exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
function telemetryHook(service) {
  const resolve = createRequire(`${root}apps/${service.app}/package.json`).resolve;
  return pathToFileURL(resolve('@retry-safe/app-shell/otel')).href;
}

/** Starts a service in its own process group (only this script signals it, once: Ctrl-C would signal it too). */
function start(service, prefix) {
  const child = spawn(process.execPath, ['--import', telemetryHook(service), service.entry], {
    env: { ...env, ...shared },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.set(service.name, child);
  prefixLines(child.stdout, prefix, process.stdout);
  prefixLines(child.stderr, prefix, process.stderr);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    process.stdout.write(`${prefix}exited (${signal ?? `code ${code}`})\n`);
    if (!stopping) {
      process.stdout.write(`${prefix}restarting in ${RESTART_DELAY_MS / 1000} s\n`);
      setTimeout(() => {
        if (!stopping) start(service, prefix);
      }, RESTART_DELAY_MS);
      return;
    }
    if (children.size === 0) process.exit(0);
  });
}

services.forEach((service, index) => {
  const color = colors[index % colors.length];
  const label = service.name.padEnd(width);
  start(service, color === undefined ? `[${label}] ` : `\u001b[${color}m[${label}]\u001b[0m `);
});

function stop(reason) {
  if (stopping) return;
  stopping = true;
  console.log(`stack: stopping (${reason})`);
  if (children.size === 0) process.exit(0);
  for (const child of children.values()) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, stopGraceMs).unref();
}

process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Last resort (an uncaught error here): leave no service behind.
process.on('exit', () => {
  for (const child of children.values()) child.kill('SIGKILL');
});

/** Prints the URLs once every service answers GET /health (or says which did not within 30 s). */
async function announce() {
  const deadline = Date.now() + 30_000;
  const waiting = new Set(services.map((service) => service.name));
  while (waiting.size > 0 && Date.now() < deadline && !stopping) {
    for (const service of services) {
      if (!waiting.has(service.name)) continue;
      const healthy = await fetch(`${local(service.port)}/health`)
        .then((res) => res.status === 200)
        .catch(() => false);
      if (healthy) waiting.delete(service.name);
    }
    if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (stopping) return;
  if (waiting.size > 0) {
    console.log(
      `stack: not healthy after 30 s: ${[...waiting].join(', ')} (is Redis up at ${new URL(shared.REDIS_URL).host}, PostgreSQL at ${new URL(shared.DATABASE_URL).host}?)`,
    );
    return;
  }
  console.log(
    [
      'stack: ready',
      ...services.map((service) => `  ${service.name.padEnd(width)}  ${local(service.port)}`),
      `  faults    ${shared.FAULTS_ENABLED === 'true' ? "on (/__faults on every service; the gateway's on its admin listener, http://127.0.0.1:9401)" : 'off'}`,
      '  tenants   Authorization: Bearer demo-token-tenant-a | demo-token-tenant-b',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
}

void announce();
