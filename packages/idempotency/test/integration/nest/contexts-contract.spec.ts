import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { lastValueFrom } from 'rxjs';
import request from 'supertest';
import { startRedis, waitFor } from '@retry-safe/testing';
import { IdempotencyModule } from '../../../src/nest/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { suiteRedis } from '../support.js';
import {
  CONTRACT_PATTERN,
  ContractController,
  ContractEffects,
  ContractResolver,
  type ContractCall,
} from './contract.handlers.js';
import { NATS_URL } from './microservice-apps.js';

const redis = suiteRedis(() => startRedis());

/** What a caller got, in any context: the handler's answer, or the idempotency error's status, code and retry hint. */
type Answer = { ok: unknown } | { error: { status: number; code: string; retryAfter?: number } };

let app: INestApplication;
let client: ClientProxy;
let effects: ContractEffects;

/** One Nest app that serves the operation over HTTP, NATS and GraphQL (Apollo on Express), on one store. */
beforeAll(async () => {
  @Module({
    imports: [
      IdempotencyModule.forRoot({
        store: new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-contract:${randomUUID()}:` }),
      }),
      GraphQLModule.forRoot<ApolloDriverConfig>({
        driver: ApolloDriver,
        autoSchemaFile: true,
        includeStacktraceInErrorResponses: false,
      }),
    ],
    controllers: [ContractController],
    providers: [ContractEffects, ContractResolver],
  })
  class HybridModule {}
  const moduleRef = await Test.createTestingModule({ imports: [HybridModule] }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  app.connectMicroservice({ transport: Transport.NATS, options: { servers: [NATS_URL] } });
  await app.startAllMicroservices();
  await app.init();
  effects = app.get(ContractEffects);
  client = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [NATS_URL] } });
  await client.connect();
});
afterAll(async () => {
  await client?.close();
  await app?.close();
});

const CONTEXTS: Record<'http' | 'rpc' | 'graphql', (call: ContractCall) => Promise<Answer>> = {
  http: async ({ key, tenant, amount }) => {
    const req = request(app.getHttpServer()).post('/contract').set('X-Tenant', tenant);
    const res = await (key === undefined ? req : req.set('Idempotency-Key', key)).send({ amount });
    if (res.status < 300) return { ok: res.body };
    const retryAfter = res.headers['retry-after'];
    return {
      error: {
        status: res.status,
        code: (res.body as { code: string }).code,
        ...(retryAfter === undefined ? {} : { retryAfter: Number(retryAfter) }),
      },
    };
  },
  rpc: async (call) => {
    try {
      return { ok: await lastValueFrom(client.send(CONTRACT_PATTERN, call)) };
    } catch (error) {
      const { status, code, retryAfter } = error as { status: number; code: string; retryAfter?: number };
      return { error: { status, code, ...(retryAfter === undefined ? {} : { retryAfter }) } };
    }
  },
  graphql: async (call) => {
    const res = await request(app.getHttpServer()).post('/graphql').send({
      query:
        'mutation($key: String, $tenant: String!, $amount: Int!) { contract(key: $key, tenant: $tenant, amount: $amount) }',
      variables: call,
    });
    const body = res.body as {
      data: { contract: number } | null;
      errors?: { extensions: { status: number; code: string; retryAfter?: number } }[];
    };
    const extensions = body.errors?.[0]?.extensions;
    if (extensions === undefined) return { ok: body.data?.contract };
    const { status, code, retryAfter } = extensions;
    return { error: { status, code, ...(retryAfter === undefined ? {} : { retryAfter }) } };
  },
};

/**
 * Each rule, as a caller meets it: what the last call gets, and how many times the operation ran. The expected
 * answers are one list for every context.
 */
const RULES: readonly {
  rule: string;
  expected: 'replayed' | 'ran again' | Answer;
  runs: number;
  play(
    call: (c: Omit<ContractCall, 'key'> & { key?: string | undefined }) => Promise<Answer>,
    key: string,
  ): Promise<Answer>;
}[] = [
  {
    rule: 'no key: idempotency_key_missing',
    expected: { error: { status: 400, code: 'idempotency_key_missing' } },
    runs: 0,
    play: (call) => call({ tenant: 't1', amount: 1 }),
  },
  {
    rule: 'the same key and input again: the first answer, replayed',
    expected: 'replayed',
    runs: 1,
    play: async (call, key) => {
      await call({ key, tenant: 't1', amount: 1 });
      return call({ key, tenant: 't1', amount: 1 });
    },
  },
  {
    rule: 'the same key with another input (fingerprint): idempotency_key_reused',
    expected: { error: { status: 422, code: 'idempotency_key_reused' } },
    runs: 1,
    play: async (call, key) => {
      await call({ key, tenant: 't1', amount: 1 });
      return call({ key, tenant: 't1', amount: 2 });
    },
  },
  {
    rule: 'the same key in another scope: a record of its own, the operation runs',
    expected: 'ran again',
    runs: 2,
    play: async (call, key) => {
      await call({ key, tenant: 't1', amount: 1 });
      return call({ key, tenant: 't2', amount: 1 });
    },
  },
  {
    rule: 'the same key while the first runs (inFlight: raise): request_in_progress, retry after 1 s',
    expected: { error: { status: 409, code: 'request_in_progress', retryAfter: 1 } },
    runs: 1,
    play: async (call, key) => {
      let release: () => void = () => {};
      effects.hold = new Promise((resolve) => (release = resolve));
      const before = effects.runs;
      const first = call({ key, tenant: 't1', amount: 1 });
      try {
        await waitFor('the first to run', async () => {
          if (effects.runs === before) throw new Error('not yet');
        });
        return await call({ key, tenant: 't1', amount: 1 });
      } finally {
        release();
        effects.hold = undefined;
        await first;
      }
    },
  },
];

describe.each(RULES)('$rule', ({ expected, runs, play }) => {
  it.each(Object.keys(CONTEXTS) as (keyof typeof CONTEXTS)[])('over %s', async (context) => {
    const call = CONTEXTS[context];
    const key = `contract-${randomUUID()}`;
    const before = effects.runs;
    const answers: Answer[] = [];
    const recording = async (c: ContractCall) => {
      const answer = await call(c);
      answers.push(answer);
      return answer;
    };
    const last = await play(recording, key);
    expect(effects.runs - before).toBe(runs);
    if (expected === 'replayed') {
      expect('ok' in last).toBe(true);
      expect(last).toEqual(answers[0]);
    } else if (expected === 'ran again') {
      expect('ok' in last).toBe(true);
      expect(last).not.toEqual(answers[0]);
    } else {
      expect(last).toEqual(expected);
    }
  });
});
