// What every suite shares: the app's config from the environment (PLATFORM, STORE, REDIS_URL or DATABASE_URL),
// an app started on a free port of 127.0.0.1, requests over real HTTP, and the problems the library sends.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, beforeEach, mock } from 'node:test';
import type { DynamicModule, INestApplication, NestApplicationOptions, Type } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppModule } from '../src/app.module.js';
import { loadConfig, type AppConfig } from '../src/config.js';
import { createApp } from '../src/create-app.js';
import { PaymentProvider } from '../src/payment-provider.js';

/** The configured app, with a Redis prefix of this run's own: nothing else in that Redis is read or touched. */
export const config: AppConfig = ownPrefix(loadConfig(process.env));

function ownPrefix(loaded: AppConfig): AppConfig {
  if (loaded.store.kind !== 'redis') return loaded;
  return { ...loaded, store: { ...loaded.store, keyPrefix: `nest-charges-example:${randomUUID()}:` } };
}

export interface RunningApp {
  readonly app: INestApplication;
  readonly url: string;
  /** Its provider: its `calls` are the effects. */
  readonly provider: PaymentProvider;
}

/**
 * A fresh app per test of the calling file (its provider's calls start at 0): started before each test; after
 * it, held calls are let go (a request still waiting on one would keep the app from closing) and the app closed.
 * The file's Redis records are deleted at the end.
 */
export function appPerTest(): () => RunningApp {
  let running: RunningApp | undefined;
  beforeEach(async () => {
    running = await startApp();
  });
  afterEach(async () => {
    for (const release of held) release();
    held.clear();
    mock.restoreAll();
    await running?.app.close();
    running = undefined;
  });
  after(deleteRecords);
  return () => running ?? assert.fail('no app: appPerTest() runs it for tests only');
}

/** Starts `module` (the app by default) on the configured platform. */
export async function startApp(
  module: Type | DynamicModule = AppModule.forRoot(config),
  options: NestApplicationOptions = { logger: false },
): Promise<RunningApp> {
  // A start-up error reaches the test: by default Nest logs it and calls process.abort().
  const app = await createApp(module, config.platform, { abortOnError: false, ...options });
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  // Looked up when asked: a test's own module may have no provider.
  return {
    app,
    url,
    get provider() {
      return app.get(PaymentProvider);
    },
  };
}

/** The error the app's start-up fails with, or `undefined` if it started (it is closed again). */
export async function startupError(build: () => Type | DynamicModule): Promise<Error | undefined> {
  try {
    const { app } = await startApp(build());
    await app.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The body as sent, byte for byte. */
  readonly bytes: Buffer;
  /** The body parsed when its type is JSON, else as text. */
  readonly body: unknown;
}

export interface Send {
  /** The `Idempotency-Key`; none is sent when absent. */
  readonly key?: string;
  /** Sent as JSON. @default {} */
  readonly json?: unknown;
  /** Sent as it is, with a JSON content type (a body JSON.stringify would not write). */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export async function post(url: string, path: string, send: Send = {}): Promise<Answer> {
  const res = await fetch(new URL(path, url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(send.key === undefined ? {} : { 'idempotency-key': send.key }),
      ...send.headers,
    },
    body: send.raw ?? JSON.stringify(send.json ?? {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = /[/+]json\b/.test(res.headers.get('content-type') ?? '') && bytes.length > 0;
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    body: json ? JSON.parse(bytes.toString()) : bytes.toString(),
  };
}

/** The answer is exactly this RFC 9457 problem, as the library's filter sends it. */
export function assertProblem(
  answer: Answer,
  expected: { status: number; code: string; title: string; detail: string; instance: string },
): void {
  assert.equal(answer.status, expected.status);
  // Either is RFC 9457's media type: a charset parameter changes nothing for JSON, and the adapter may add one.
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json(; charset=utf-8)?$/);
  assert.deepEqual(answer.body, { type: 'about:blank', ...expected });
}

export const keyMissing = {
  status: 400,
  code: 'idempotency_key_missing',
  title: 'Idempotency-Key required',
  detail: 'The Idempotency-Key header is required',
} as const;

/** The first call is a replay's opposite: no `Idempotent-Replayed` header at all. */
export function assertFirst(answer: Answer, status: number): void {
  assert.equal(answer.status, status);
  assert.equal(answer.headers.get('idempotent-replayed'), null);
}

export function assertReplayOf(replay: Answer, first: Answer): void {
  assert.equal(replay.status, first.status);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.headers.get('content-type'), first.headers.get('content-type'));
  assert.ok(replay.bytes.equals(first.bytes), 'the replayed body differs from the first');
}

/** Sends the same request twice: the first runs (`status`, not marked replayed), the second is its replay. */
export async function sendTwice(
  send: () => Promise<Answer>,
  status: number,
): Promise<{ first: Answer; retry: Answer }> {
  const first = await send();
  assertFirst(first, status);
  const retry = await send();
  assertReplayOf(retry, first);
  return { first, retry };
}

/**
 * Sends a request, holds it inside the provider's `method`, and sends it again: the duplicate's answer, and
 * `finish`, which lets the first go on and gives its answer.
 */
export async function whileInFlight(
  provider: PaymentProvider,
  method: 'charge' | 'quote',
  send: () => Promise<Answer>,
): Promise<{ duplicate: Answer; finish: () => Promise<Answer> }> {
  const held = hold(provider, method);
  const first = send();
  await held.entered;
  const duplicate = await send();
  return {
    duplicate,
    finish: () => {
      held.release();
      return first;
    },
  };
}

/** The releases of the calls `hold` holds, all called after each test. */
const held = new Set<() => void>();

/**
 * Holds the provider's `method` until `release`: the first call stays in flight while the test sends another.
 * `entered` resolves once the held call has started.
 */
function hold(
  provider: PaymentProvider,
  method: 'charge' | 'quote',
): { entered: Promise<void>; release: () => void } {
  const entered = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const original = provider[method].bind(provider) as (...args: unknown[]) => Promise<unknown>;
  mock.method(provider, method, async (...args: unknown[]) => {
    entered.resolve();
    await released.promise;
    return original(...args);
  });
  const release = () => released.resolve();
  held.add(release);
  return { entered: entered.promise, release };
}

/** Deletes this run's Redis records (they live 24 hours); PostgreSQL's go with the test database. */
export async function deleteRecords(): Promise<void> {
  if (config.store.kind !== 'redis') return;
  const redis = new Redis(config.store.url);
  try {
    const match = `${config.store.keyPrefix}*`;
    for await (const keys of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    await redis.quit();
  }
}
