// What every suite shares: the service on the configured broker (TRANSPORT, NATS_URL or AMQP_URL, REDIS_URL),
// started in this process with a client of its own, messages with a key in their transport headers, and the
// replays the library publishes. Each file isolates itself: its own subjects, queues and Redis prefix.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import { after, afterEach, beforeEach, mock } from 'node:test';
import type { INestMicroservice } from '@nestjs/common';
import {
  ClientProxyFactory,
  NatsRecordBuilder,
  RmqRecordBuilder,
  type ClientProxy,
} from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  IdempotencyChannel,
  idempotencyKeyHash,
  type IdempotencyChannelMessage,
} from '@retry-safe/idempotency';
import type { AmqpConnectionManager } from 'amqp-connection-manager';
import amqplib from 'amqplib';
import { Redis } from 'ioredis';

// The service's patterns take their namespace from the environment when its modules load (src/patterns.ts): this
// file's own, set before they load, so no other process on the NATS server answers (or steals) these messages.
process.env['PATTERN_NAMESPACE'] = `nest-microservices-example.${randomUUID()}`;
const { loadConfig, TransportName } = await import('../src/config.js');
const { createService } = await import('../src/service.js');
const { clientOptions } = await import('../src/transport.js');
const { Mailer } = await import('../src/mailer.js');
const { PaymentProvider } = await import('../src/payment-provider.js');
export const { Patterns } = await import('../src/patterns.js');

/** The configured service, with a Redis prefix of this file's own: nothing else in that Redis is read or touched. */
const config = {
  ...loadConfig(process.env),
  keyPrefix: `nest-microservices-example:${randomUUID()}:`,
};
export const onRabbitMq = config.transport === TransportName.RabbitMq;

export interface RunningService {
  readonly app: INestMicroservice;
  /** The queue it consumes (RabbitMQ): one per service, deleted after the file. */
  readonly queue: string;
  /** The effects: the provider's `calls`, the mailer's `sent`. */
  readonly provider: InstanceType<typeof PaymentProvider>;
  readonly mailer: InstanceType<typeof Mailer>;
  /** Sends a request and waits for its reply, or the error the client received. */
  send<T>(pattern: string, data: unknown): Promise<{ reply?: T; error?: unknown }>;
  /** Publishes an event. */
  emit(pattern: string, data: unknown): Promise<void>;
  /** Closes its client, then the service (its broker connection, its store, its Redis client). */
  close(): Promise<void>;
}

const queues: string[] = [];
// Whatever a file started, its records and queues go when it ends.
after(cleanUp);

/** Starts the service on a queue of its own (RabbitMQ), with a connected client. */
async function startService(): Promise<RunningService> {
  const own = { ...config, queue: `${config.queue}.${randomUUID()}` };
  queues.push(own.queue);
  const app = await createService(own, { logger: false });
  const client: ClientProxy = ClientProxyFactory.create(clientOptions(own));
  try {
    await app.listen();
    await client.connect();
  } catch (error) {
    await client.close();
    await app.close();
    throw error;
  }
  return {
    app,
    queue: own.queue,
    provider: app.get(PaymentProvider),
    mailer: app.get(Mailer),
    send: <T>(pattern: string, data: unknown) =>
      new Promise<{ reply?: T; error?: unknown }>((resolve) =>
        client.send<T>(pattern, data).subscribe({
          next: (reply) => resolve({ reply }),
          error: (error: unknown) => resolve({ error }),
        }),
      ),
    emit: (pattern, data) =>
      new Promise<void>((resolve, reject) =>
        client.emit(pattern, data).subscribe({ complete: resolve, error: reject }),
      ),
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}

/**
 * A fresh service per test of the calling file (its effects start at 0), closed after it; on RabbitMQ, the test
 * fails if it left a message unsettled.
 */
export function servicePerTest(): () => RunningService {
  let running: RunningService | undefined;
  beforeEach(async () => {
    running = await startService();
  });
  afterEach(async () => {
    mock.restoreAll();
    const queue = running?.queue;
    await running?.close();
    running = undefined;
    // Every message was settled, refused ones too: an unacknowledged one would be back in the queue now.
    if (onRabbitMq && queue !== undefined)
      assert.equal(await readyMessages(queue), 0, 'messages left unsettled');
  });
  return () => running ?? assert.fail('no service: servicePerTest() starts one for tests only');
}

/** `data` with `key` in the transport's headers: NATS message headers, or RabbitMQ message properties' headers. */
export function withKey(data: object, key: string): unknown {
  if (config.transport === TransportName.Nats) {
    const headers = natsHeaders();
    headers.set('Idempotency-Key', key);
    return new NatsRecordBuilder(data).setHeaders(headers).build();
  }
  return new RmqRecordBuilder(data).setOptions({ headers: { 'Idempotency-Key': key } }).build();
}

/**
 * Resolves when the library publishes `channel` (e.g. `IdempotencyChannel.Replayed`) for `operation` and `key`: it
 * publishes every outcome on `node:diagnostics_channel`, the key as its hash. A replay is the sign that a duplicate
 * reached the service and ended without running its handler. Call it before sending what it waits for.
 */
export function nextOutcome(channel: IdempotencyChannel, operation: string, key: string, timeoutMs = 10_000) {
  const keyHash = idempotencyKeyHash(key);
  const seen = Promise.withResolvers<void>();
  const listener = (message: unknown) => {
    const outcome = message as IdempotencyChannelMessage;
    if (outcome.operation === operation && outcome.keyHash === keyHash) seen.resolve();
  };
  subscribe(channel, listener);
  // Decided after the event loop has read its sockets: an outcome that arrived in time counts, however busy we were.
  const timer = setTimeout(
    () => setImmediate(() => seen.reject(new Error(`no ${channel} of ${operation} within ${timeoutMs} ms`))),
    timeoutMs,
  );
  return seen.promise.finally(() => {
    clearTimeout(timer);
    unsubscribe(channel, listener);
  });
}

/**
 * Ends the service's connection to RabbitMQ, as a network failure or a broker restart would, and resolves once it
 * is closed: the broker puts back what the connection had not acknowledged, and delivers it again once the service
 * has reconnected (amqp-connection-manager's forced reconnect: it closes the connection and at once opens another).
 */
export async function dropBrokerConnection(service: RunningService): Promise<void> {
  const manager = service.app.unwrap<AmqpConnectionManager>();
  const closed = once(manager, 'disconnect');
  manager.reconnect();
  await closed;
}

/** How many messages wait, ready, in `queue`: an unacknowledged one is back among them once its consumer left. */
async function readyMessages(queue: string): Promise<number> {
  const connection = await amqplib.connect(config.amqpUrl);
  try {
    const channel = await connection.createChannel();
    return (await channel.checkQueue(queue)).messageCount;
  } finally {
    await connection.close();
  }
}

/** Deletes this file's Redis records (they live 24 hours) and its RabbitMQ queues. */
async function cleanUp(): Promise<void> {
  const redis = new Redis(config.redisUrl);
  const records = redis.scanStream({ match: `${config.keyPrefix}*`, count: 1000 }) as AsyncIterable<string[]>;
  for await (const keys of records) if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
  if (!onRabbitMq) return;
  const connection = await amqplib.connect(config.amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of queues.splice(0)) await channel.deleteQueue(queue);
  } finally {
    await connection.close();
  }
}
