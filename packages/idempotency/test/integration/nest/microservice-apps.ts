import { randomUUID } from 'node:crypto';
import { Module, type INestMicroservice, type Type } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import {
  ClientProxyFactory,
  NatsRecordBuilder,
  RmqRecordBuilder,
  Transport,
  type ClientOptions,
  type ClientProxy,
  type MicroserviceOptions,
} from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import amqplib from 'amqplib';
import { lastValueFrom } from 'rxjs';
import { Test } from '@nestjs/testing';
import { IdempotencyModule, type IdempotencyModuleOptions } from '../../../src/nest/index.js';
import { DeliveryLog, MessageEffects } from './messages.controller.js';

/** The brokers of this machine (scripts/setup.sh test starts them), or the ones the environment names. */
export const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
export const AMQP_URL = process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The transports the RPC suites run on: Nest's own NATS and RabbitMQ transports, on the real brokers. */
export const TRANSPORTS = ['nats', 'rabbitmq'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** Where one app listens and how its client reaches it: a queue of its own on RabbitMQ. */
export interface TransportSetup {
  readonly name: TransportName;
  readonly server: MicroserviceOptions;
  readonly client: ClientOptions;
  /** The queue the app consumes (RabbitMQ). */
  readonly queue?: string;
  /** A payload sent with an `Idempotency-Key` transport header: NATS headers, RabbitMQ message headers. */
  withKey(data: object, key: string, header?: string): unknown;
}

export interface TransportTuning {
  /** RabbitMQ: the consumer acknowledges each message itself (`noAck: false`). */
  manualAck?: boolean;
  /** RabbitMQ: the URL the app's server connects through (a proxy), when not {@link AMQP_URL}. */
  serverUrl?: string;
}

export function transportSetup(name: TransportName, tuning: TransportTuning = {}): TransportSetup {
  if (name === 'nats') {
    return {
      name,
      server: { transport: Transport.NATS, options: { servers: [NATS_URL] } },
      client: { transport: Transport.NATS, options: { servers: [NATS_URL] } },
      withKey: (data, key, header = 'Idempotency-Key') => {
        const headers = natsHeaders();
        headers.set(header, key);
        return new NatsRecordBuilder(data).setHeaders(headers).build();
      },
    };
  }
  const queue = `idempotency-rpc-${randomUUID()}`;
  // Not auto-deleted: a consumer whose connection drops must find its queue (and its unacknowledged messages)
  // when it comes back. Deleted by `deleteQueues`.
  const queueOptions = { durable: false };
  return {
    name,
    queue,
    server: {
      transport: Transport.RMQ,
      options: {
        urls: [tuning.serverUrl ?? AMQP_URL],
        queue,
        queueOptions,
        noAck: !(tuning.manualAck ?? false),
        // A dropped connection comes back within a test's patience (the default waits 5 s).
        socketOptions: { reconnectTimeInSeconds: 0.2 },
      },
    },
    client: { transport: Transport.RMQ, options: { urls: [AMQP_URL], queue, queueOptions } },
    withKey: (data, key, header = 'Idempotency-Key') =>
      new RmqRecordBuilder(data).setOptions({ headers: { [header]: key } }).build(),
  };
}

export interface MicroserviceApp {
  readonly app: INestMicroservice;
  readonly effects: MessageEffects;
  readonly log: DeliveryLog;
  readonly client: ClientProxy;
  /** The reply to a request, or the error the client received. */
  send(pattern: string, data: unknown): Promise<{ reply?: unknown; error?: unknown }>;
  emit(pattern: string, data: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a Nest microservice on `setup`'s transport with `IdempotencyModule.forRoot(options)` and `controllers`,
 * every delivery recorded by a {@link DeliveryLog}, and a connected client for it.
 */
export async function startMicroservice(
  setup: TransportSetup,
  options: IdempotencyModuleOptions,
  controllers: Type[],
  tuning: TransportTuning = {},
): Promise<MicroserviceApp> {
  @Module({
    imports: [IdempotencyModule.forRoot(options)],
    controllers,
    providers: [MessageEffects, DeliveryLog, { provide: APP_INTERCEPTOR, useExisting: DeliveryLog }],
  })
  class MicroserviceModule {}
  const moduleRef = await Test.createTestingModule({ imports: [MicroserviceModule] }).compile();
  const app = moduleRef.createNestMicroservice<MicroserviceOptions>({ ...setup.server, logger: false });
  const client = ClientProxyFactory.create(setup.client);
  try {
    await app.listen();
    await client.connect();
  } catch (error) {
    await client.close();
    await app.close();
    throw error;
  }
  const effects = app.get(MessageEffects);
  effects.manualAck = tuning.manualAck ?? false;
  return {
    app,
    effects,
    log: app.get(DeliveryLog),
    client,
    send: (pattern, data) =>
      lastValueFrom(client.send(pattern, data)).then(
        (reply: unknown) => ({ reply }),
        (error: unknown) => ({ error }),
      ),
    emit: (pattern, data) => lastValueFrom(client.emit(pattern, data), { defaultValue: undefined }),
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}

/** How many messages wait, ready, in each queue: an unacknowledged one is counted again once its consumer left. */
export async function readyMessages(queue: string): Promise<number> {
  return withChannel(async (channel) => (await channel.checkQueue(queue)).messageCount);
}

export async function deleteQueues(queues: readonly (string | undefined)[]): Promise<void> {
  await withChannel(async (channel) => {
    for (const queue of queues) if (queue !== undefined) await channel.deleteQueue(queue);
  });
}

async function withChannel<T>(use: (channel: amqplib.Channel) => Promise<T>): Promise<T> {
  const connection = await amqplib.connect(AMQP_URL);
  try {
    const channel = await connection.createChannel();
    return await use(channel);
  } finally {
    await connection.close();
  }
}
