import { createHash, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { startRedis } from '@retry-safe/testing';
import { IdempotencyErrorCode, InFlightMode } from '../../src/index.js';
import { countingAction, suiteRedis, world } from './support.js';

const redis = suiteRedis(() => startRedis());
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('test');
let contextManager: ContextManager;

beforeAll(() => {
  // Active spans (and so the span events the coordinator adds) need a context manager, as the SDK registers one.
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
});
afterEach(() => exporter.reset());
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

const sha256Prefix = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** The coordinator's spans, oldest first. */
function coordinateSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === 'idempotency.coordinate');
}

/** Every attribute value of every span and event, as text: the raw key must be in none. */
function everyRecordedValue(): string {
  return JSON.stringify(
    exporter
      .getFinishedSpans()
      .map((span) => [span.attributes, span.events.map((event) => event.attributes)]),
  );
}

describe('the coordinator with a tracer: one span per call', () => {
  it('says executed, then replayed, with the owner fencing token and the key only as its hash', async () => {
    const w = world(redis.client);
    const coordinator = w.coordinator({ tracer });
    const key = `order-${randomUUID()}`;
    const action = countingAction();

    await coordinator.coordinate(w.request(key), action.run);
    await coordinator.coordinate(w.request(key), action.run);

    expect(action.executions).toBe(1);
    const [token] = action.tokens;
    expect(coordinateSpans().map((span) => span.attributes)).toEqual([
      {
        'idempotency.operation': 'payment.charge.t1',
        'idempotency.key_hash': sha256Prefix(key),
        'idempotency.fencing_token': token,
        'idempotency.outcome': 'executed',
      },
      {
        'idempotency.operation': 'payment.charge.t1',
        'idempotency.key_hash': sha256Prefix(key),
        'idempotency.fencing_token': token,
        'idempotency.outcome': 'replayed',
      },
    ]);
    expect(everyRecordedValue()).not.toContain(key);
    await w.close();
  });

  it('says key_reuse for another fingerprint, as an error, with no fencing token (nothing ran)', async () => {
    const w = world(redis.client);
    const coordinator = w.coordinator({ tracer });
    const key = randomUUID();
    await coordinator.coordinate(w.request(key), countingAction().run);

    await expect(
      coordinator.coordinate(w.request(key, { fingerprint: 'fp-b' }), countingAction().run),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });

    const reuse = coordinateSpans()[1];
    expect(reuse?.attributes['idempotency.outcome']).toBe('key_reuse');
    expect(reuse?.attributes['idempotency.fencing_token']).toBeUndefined();
    expect(reuse?.status.code).toBe(2);
    await w.close();
  });

  it('says in_progress for a duplicate refused while the owner runs, and the owner then says executed', async () => {
    const w = world(redis.client);
    const coordinator = w.coordinator({ tracer, inFlight: InFlightMode.Raise });
    const key = randomUUID();
    const held = countingAction({ holdMs: 5_000 });
    const owner = coordinator.coordinate(w.request(key), held.run);
    await new Promise((resolve) => setTimeout(resolve, 50));

    await expect(coordinator.coordinate(w.request(key), countingAction().run)).rejects.toMatchObject({
      code: IdempotencyErrorCode.InProgress,
    });
    held.release();
    await owner;

    const outcomes = coordinateSpans().map((span) => span.attributes['idempotency.outcome']);
    expect(outcomes).toEqual(['in_progress', 'executed']);
    expect(coordinateSpans()[0]?.events.map((event) => event.name)).toEqual(['idempotency.in_progress']);
    await w.close();
  });

  it('says action_failed when the action throws; the retry executes as the next owner, with its own token', async () => {
    const w = world(redis.client);
    const coordinator = w.coordinator({ tracer });
    const key = randomUUID();
    const failing = countingAction({ fail: true });
    const retry = countingAction();

    await expect(coordinator.coordinate(w.request(key), failing.run)).rejects.toThrow(
      'provider failed on execution 1',
    );
    await coordinator.coordinate(w.request(key), retry.run);

    expect(retry.tokens[0]).toBeGreaterThan(failing.tokens[0] as number);
    expect(
      coordinateSpans().map((span) => [
        span.attributes['idempotency.outcome'],
        span.attributes['idempotency.fencing_token'],
      ]),
    ).toEqual([
      ['action_failed', failing.tokens[0]],
      ['executed', retry.tokens[0]],
    ]);
    await w.close();
  });

  it('records nothing without a tracer', async () => {
    const w = world(redis.client);
    await w.coordinator().coordinate(w.request(randomUUID()), countingAction().run);
    expect(exporter.getFinishedSpans()).toEqual([]);
    await w.close();
  });
});
