// What every suite shares: the API on a free port of 127.0.0.1 with a Redis prefix of its file's own, and GraphQL
// operations posted over real HTTP as any client sends them.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { AppModule } from '../src/app.module.js';
import { loadConfig, type ApiConfig } from '../src/config.js';
import { PaymentProvider } from '../src/payment-provider.js';

const config: ApiConfig = { ...loadConfig(process.env), keyPrefix: `nest-graphql-example:${randomUUID()}:` };

/** A running API: `await using api = await startApi()` closes it when the test's block ends, however it ends. */
export interface RunningApi extends AsyncDisposable {
  readonly app: INestApplication;
  /** Its provider: the charges and refunds it holds are the effects. */
  readonly provider: PaymentProvider;
  /** Posts an operation to /graphql, with `headers` beside the JSON content type. */
  post(query: string, variables: object, headers?: Record<string, string>): Promise<GraphqlAnswer>;
}

export interface GraphqlAnswer {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> | null; errors?: GraphqlError[] };
}

export interface GraphqlError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly extensions?: Record<string, unknown>;
}

/** A fresh API (no charges yet). */
export async function startApi(): Promise<RunningApi> {
  // A start-up error reaches the test: by default Nest logs it and calls process.abort().
  const app = await NestFactory.create(AppModule.with(config), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const endpoint = new URL('/graphql', await app.getUrl());
  return {
    app,
    provider: app.get(PaymentProvider),
    post: async (query, variables, headers = {}) => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: (await res.json()) as GraphqlAnswer['body'] };
    },
    [Symbol.asyncDispose]: () => app.close(),
  };
}

/** The answer is this one idempotency error on `field`: no data, `extensions` exactly as given. */
export function assertIdempotencyError(
  answer: GraphqlAnswer,
  field: string,
  extensions: { status: number; code: string; message: string; retryAfter?: number },
): void {
  // GraphQL over HTTP: a field's error still answers 200, the error in the body.
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data, null);
  assert.equal(answer.body.errors?.length, 1, JSON.stringify(answer.body.errors));
  const [error] = answer.body.errors!;
  assert.deepEqual(error!.path, [field]);
  assert.equal(error!.message, extensions.message);
  assert.deepEqual(error!.extensions, extensions);
}

// The file's Redis records (they live 24 hours) go when it ends.
after(async () => {
  const redis = new Redis(config.redisUrl);
  try {
    const match = `${config.keyPrefix}*`;
    for await (const keys of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    await redis.quit();
  }
});
