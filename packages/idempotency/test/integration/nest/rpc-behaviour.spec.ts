import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, startTcpProxy, waitFor, type TcpProxy } from '@retry-safe/testing';
import type { IdempotencyEvent } from '../../../src/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { suiteRedis } from '../support.js';
import {
  ChargeMessagesController,
  LedgerMessagesController,
  PATTERNS,
  type DeliveryLog,
} from './messages.controller.js';
import {
  AMQP_URL,
  TRANSPORTS,
  deleteQueues,
  readyMessages,
  startMicroservice,
  transportSetup,
  type MicroserviceApp,
  type TransportSetup,
} from './microservice-apps.js';

const redis = suiteRedis(() => startRedis());
const store = () => new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-rpc:${randomUUID()}:` });

/** The error a microservice client receives for an idempotency error, whole. */
const rpcError = (status: number, code: string, message: string, retryAfter?: number) => ({
  status,
  code,
  message,
  ...(retryAfter === undefined ? {} : { retryAfter }),
});
const REUSED = rpcError(
  422,
  'idempotency_key_reused',
  'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
);
const MISSING = rpcError(400, 'idempotency_key_missing', 'An idempotency key is required');
const IN_PROGRESS = rpcError(
  409,
  'request_in_progress',
  'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
  1,
);

/** Resolves once `holds` is true (a bound, not a measurement). */
const until = (what: string, holds: () => boolean | Promise<boolean>, timeoutMs = 10_000) =>
  waitFor(
    what,
    async () => {
      if (!(await holds())) throw new Error('not yet');
    },
    { timeoutMs },
  );

/** Every delivery of `pattern` has ended (its handler answered or failed), and there are `count` of them. */
const ended = (log: DeliveryLog, pattern: string, count: number) =>
  until(
    `${count} deliveries of ${pattern} to end`,
    () => log.of(pattern).length === count && log.of(pattern).every((d) => d.outcome !== undefined),
  );

describe.each(TRANSPORTS)('@Idempotent() on microservice handlers over real %s', (transport) => {
  let setup: TransportSetup;
  let service: MicroserviceApp;
  const events: IdempotencyEvent[] = [];
  beforeAll(async () => {
    setup = transportSetup(transport);
    service = await startMicroservice(
      setup,
      { store: store(), coordinator: { onEvent: (e) => events.push(e) } },
      [ChargeMessagesController, LedgerMessagesController],
    );
  });
  afterAll(async () => {
    await service?.close();
    if (setup.queue !== undefined) await deleteQueues([setup.queue]);
  });
  const effects = () => service.effects;

  it('request-response, key from the transport header: one effect, the same reply both times', async () => {
    const before = effects().charges;
    const key = `hdr-${randomUUID()}`;
    const first = await service.send(PATTERNS.charge, setup.withKey({ amount: 100 }, key));
    // A header's name is case-insensitive: a client that spells it otherwise sends the same key.
    const again = await service.send(PATTERNS.charge, setup.withKey({ amount: 100 }, key, 'IDEMPOTENCY-KEY'));
    expect(first.error).toBeUndefined();
    expect(first.reply).toEqual({ id: `ch_${before + 1}`, amount: 100, at: { effect: before + 1 } });
    expect(again).toEqual(first);
    expect(effects().charges - before).toBe(1);
    // Another key is another charge.
    const other = await service.send(PATTERNS.charge, setup.withKey({ amount: 100 }, `${key}-2`));
    expect(other.reply).toEqual({ id: `ch_${before + 2}`, amount: 100, at: { effect: before + 2 } });
    expect(effects().charges - before).toBe(2);
  });

  it('the key from a payload path (meta.eventId): one effect, the same reply', async () => {
    const before = effects().charges;
    const message = { amount: 7, meta: { eventId: `evt-${randomUUID()}` } };
    const first = await service.send(PATTERNS.chargeByPayload, message);
    const again = await service.send(PATTERNS.chargeByPayload, message);
    expect(first.reply).toEqual({ id: `ch_${before + 1}`, amount: 7 });
    expect(again).toEqual(first);
    expect(effects().charges - before).toBe(1);
  });

  it('the key from a function of the message: one effect, the same reply', async () => {
    const before = effects().charges;
    const message = { amount: 9, ref: randomUUID() };
    const first = await service.send(PATTERNS.chargeByFunction, message);
    const again = await service.send(PATTERNS.chargeByFunction, message);
    expect(first.reply).toEqual({ id: `ch_${before + 1}`, amount: 9 });
    expect(again).toEqual(first);
    expect(effects().charges - before).toBe(1);
  });

  it('the same key with another payload: the client gets idempotency_key_reused (422), nothing runs', async () => {
    const key = `reuse-${randomUUID()}`;
    const eventId = `evt-${randomUUID()}`;
    const ref = randomUUID();
    await service.send(PATTERNS.charge, setup.withKey({ amount: 100 }, key));
    await service.send(PATTERNS.chargeByPayload, { amount: 1, meta: { eventId } });
    await service.send(PATTERNS.chargeByFunction, { amount: 1, ref });
    const before = effects().charges;
    const reused = [
      await service.send(PATTERNS.charge, setup.withKey({ amount: 999 }, key)),
      await service.send(PATTERNS.chargeByPayload, { amount: 2, meta: { eventId } }),
      await service.send(PATTERNS.chargeByFunction, { amount: 2, ref }),
    ];
    expect(reused).toEqual([{ error: REUSED }, { error: REUSED }, { error: REUSED }]);
    expect(effects().charges).toBe(before);
  });

  it('no key, wherever it was looked for: idempotency_key_missing (400), nothing runs', async () => {
    const before = effects().charges;
    const missing = [
      await service.send(PATTERNS.charge, { amount: 1 }),
      // A header of another name is no key.
      await service.send(PATTERNS.charge, setup.withKey({ amount: 1 }, 'k', 'X-Other')),
      await service.send(PATTERNS.chargeByPayload, { amount: 1, meta: {} }),
      await service.send(PATTERNS.chargeByFunction, { amount: 1 }),
    ];
    expect(missing).toEqual([{ error: MISSING }, { error: MISSING }, { error: MISSING }, { error: MISSING }]);
    expect(effects().charges).toBe(before);
  });

  it('a duplicate while the first runs (inFlight: raise): request_in_progress with retryAfter 1; one effect', async () => {
    let release: () => void = () => {};
    effects().hold = new Promise((resolve) => (release = resolve));
    const before = effects().charges;
    const key = `flight-${randomUUID()}`;
    const first = service.send(PATTERNS.charge, setup.withKey({ amount: 5 }, key));
    try {
      await until('the first to run', () => effects().charges > before);
      const second = await service.send(PATTERNS.charge, setup.withKey({ amount: 5 }, key));
      expect(second).toEqual({ error: IN_PROGRESS });
    } finally {
      release();
      effects().hold = undefined;
    }
    expect((await first).reply).toEqual({ id: `ch_${before + 1}`, amount: 5, at: { effect: before + 1 } });
    // Once it ended, the same key gets its reply.
    expect(await service.send(PATTERNS.charge, setup.withKey({ amount: 5 }, key))).toEqual(await first);
    expect(effects().charges - before).toBe(1);
  });

  it('a duplicate while the first runs (inFlight: wait, the default): it waits and gets the same reply; one effect', async () => {
    let release: () => void = () => {};
    effects().hold = new Promise((resolve) => (release = resolve));
    const before = effects().charges;
    const message = { amount: 12, meta: { eventId: `evt-${randomUUID()}` } };
    const seen = events.length;
    const waits = (type: string) =>
      events.slice(seen).filter((e) => e.type === type && e.operation === 'rpc.charge-by-payload').length;
    const first = service.send(PATTERNS.chargeByPayload, message);
    let second: ReturnType<MicroserviceApp['send']>;
    try {
      await until('the first to run', () => effects().charges > before);
      second = service.send(PATTERNS.chargeByPayload, message);
      await until('the duplicate to find the first in flight', () => waits('in_progress') === 1);
    } finally {
      release();
      effects().hold = undefined;
    }
    expect(await first).toEqual({ reply: { id: `ch_${before + 1}`, amount: 12 } });
    expect(await second).toEqual(await first);
    expect(waits('waited')).toBe(1);
    expect(effects().charges - before).toBe(1);
  });

  it('an event published twice: one effect, both deliveries end', async () => {
    const before = effects().events;
    const event = { amount: 3, meta: { eventId: `evt-${randomUUID()}` } };
    const delivered = service.log.of(PATTERNS.chargeCreated).length;
    await service.emit(PATTERNS.chargeCreated, event);
    await ended(service.log, PATTERNS.chargeCreated, delivered + 1);
    await service.emit(PATTERNS.chargeCreated, event);
    await ended(service.log, PATTERNS.chargeCreated, delivered + 2);
    expect(
      service.log
        .of(PATTERNS.chargeCreated)
        .slice(delivered)
        .map((d) => d.outcome),
    ).toEqual(['answered', 'answered']);
    expect(effects().events - before).toBe(1);
  });

  it('an event that arrives while its first copy runs (inFlight: raise) fails; the first copy is the one effect', async () => {
    let release: () => void = () => {};
    effects().hold = new Promise((resolve) => (release = resolve));
    const before = effects().events;
    const delivered = service.log.of(PATTERNS.chargeCreated).length;
    const event = { amount: 4, meta: { eventId: `evt-${randomUUID()}` } };
    try {
      await service.emit(PATTERNS.chargeCreated, event);
      await until('the first copy to run', () => effects().events > before);
      await service.emit(PATTERNS.chargeCreated, event);
      await until(
        'the second copy to end',
        () => service.log.of(PATTERNS.chargeCreated)[delivered + 1]?.outcome !== undefined,
      );
    } finally {
      release();
      effects().hold = undefined;
    }
    await ended(service.log, PATTERNS.chargeCreated, delivered + 2);
    const [first, second] = service.log.of(PATTERNS.chargeCreated).slice(delivered);
    expect(first?.outcome).toBe('answered');
    expect(second?.outcome).toBe('failed');
    expect(second?.error).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(effects().events - before).toBe(1);
  });

  it('@Idempotent() on the class covers its message handlers: no key refused, the same key replayed', async () => {
    const before = effects().ledger;
    const message = { amount: 11, meta: { eventId: `evt-${randomUUID()}` } };
    expect(await service.send(PATTERNS.ledger, { amount: 11 })).toEqual({ error: MISSING });
    const first = await service.send(PATTERNS.ledger, message);
    const again = await service.send(PATTERNS.ledger, message);
    expect(first.reply).toEqual({ entry: before + 1, amount: 11 });
    expect(again).toEqual(first);
    expect(effects().ledger - before).toBe(1);
  });
});

describe('@Idempotent() on RabbitMQ with manual acknowledgement (noAck: false)', () => {
  let proxy: TcpProxy;
  const queues: string[] = [];
  beforeAll(async () => {
    const broker = new URL(AMQP_URL);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
  });
  afterAll(async () => {
    await proxy?.close();
    await deleteQueues(queues);
  });

  /** A manual-ack consumer on a queue of its own (or `on`'s), connected to RabbitMQ through the proxy. */
  const start = async (on?: TransportSetup) => {
    const broker = new URL(AMQP_URL);
    broker.host = `${proxy.host}:${proxy.port}`;
    const setup = on ?? transportSetup('rabbitmq', { manualAck: true, serverUrl: broker.toString() });
    if (on === undefined) queues.push(setup.queue!);
    const service = await startMicroservice(setup, { store: sharedStore }, [ChargeMessagesController], {
      manualAck: true,
    });
    return { setup, service };
  };
  let sharedStore: RedisIdempotencyStore;
  beforeAll(() => {
    sharedStore = store();
  });

  it('an event published twice: one effect, and both messages are acknowledged', async () => {
    const { setup, service } = await start();
    try {
      const event = { amount: 3, meta: { eventId: `evt-${randomUUID()}` } };
      await service.emit(PATTERNS.chargeCreated, event);
      await ended(service.log, PATTERNS.chargeCreated, 1);
      await service.emit(PATTERNS.chargeCreated, event);
      await ended(service.log, PATTERNS.chargeCreated, 2);
      expect(service.log.of(PATTERNS.chargeCreated).map((d) => d.outcome)).toEqual(['answered', 'answered']);
      expect(service.effects.events).toBe(1);
    } finally {
      await service.close();
    }
    // An unacknowledged message goes back to the queue when its consumer leaves: none did.
    expect(await readyMessages(setup.queue!)).toBe(0);
  });

  it('an event whose ack was lost: RabbitMQ redelivers it, the handler does not run again, the redelivery is acknowledged', async () => {
    const { setup, service } = await start();
    try {
      const event = { amount: 8, meta: { eventId: `evt-${randomUUID()}` } };
      // The consumer's bytes to RabbitMQ are lost from here on: the message arrives, the handler runs and
      // acknowledges it, and the ack never reaches the broker.
      proxy.blackhole('requests');
      await service.emit(PATTERNS.chargeCreated, event);
      await ended(service.log, PATTERNS.chargeCreated, 1);
      expect(service.effects.events).toBe(1);
      // The connection dies (RST both ways): RabbitMQ requeues what it never saw acknowledged and, once the
      // consumer has reconnected, redelivers it.
      proxy.resetAll();
      proxy.heal();
      await ended(service.log, PATTERNS.chargeCreated, 2);
      expect(service.log.of(PATTERNS.chargeCreated).map((d) => [d.redelivered, d.outcome])).toEqual([
        [false, 'answered'],
        [true, 'answered'],
      ]);
      expect(service.effects.events).toBe(1);
    } finally {
      await service.close();
    }
    expect(await readyMessages(setup.queue!)).toBe(0);
  });

  it('the connection drops after the handler ran and before its ack: the ack waits for the record, the redelivery is replayed, one effect', async () => {
    const { setup, service } = await start();
    let release: () => void = () => {};
    service.effects.hold = new Promise((resolve) => (release = resolve));
    try {
      const event = { amount: 9, meta: { eventId: `evt-${randomUUID()}` } };
      await service.emit(PATTERNS.chargeCreated, event);
      await waitFor('the handler ran', async () => {
        if (service.effects.events !== 1) throw new Error(`${service.effects.events} effects`);
      });
      // The connection dies while the handler still holds the message, and no new one gets through yet: the
      // handler's ack goes to a closed channel (amqplib throws), before any redelivery can arrive.
      const closed = new Promise<void>((resolve) => service.effects.channel!.once('close', resolve));
      proxy.blackhole();
      proxy.resetAll();
      await closed;
      release();
      await ended(service.log, PATTERNS.chargeCreated, 1);
      // RabbitMQ requeued the message it never saw acknowledged; the consumer reconnects and gets it again.
      proxy.heal();
      await ended(service.log, PATTERNS.chargeCreated, 2);
      expect(service.log.of(PATTERNS.chargeCreated).map((d) => [d.redelivered, d.outcome])).toEqual([
        [false, 'answered'],
        [true, 'answered'],
      ]);
      expect(service.effects.events).toBe(1);
    } finally {
      service.effects.hold = undefined;
      release();
      proxy.heal();
      await service.close();
    }
    expect(await readyMessages(setup.queue!)).toBe(0);
  }, 60_000);

  it('a copy that arrives while the first runs (inFlight: raise) stays unacknowledged until its consumer leaves; redelivered, it is replayed and acknowledged', async () => {
    const first = await start();
    const event = { amount: 6, meta: { eventId: `evt-${randomUUID()}` } };
    let release: () => void = () => {};
    first.service.effects.hold = new Promise((resolve) => (release = resolve));
    try {
      await first.service.emit(PATTERNS.chargeCreated, event);
      await until('the first copy to run', () => first.service.effects.events === 1);
      await first.service.emit(PATTERNS.chargeCreated, event);
      await until(
        'the second copy to fail',
        () => first.service.log.of(PATTERNS.chargeCreated)[1]?.outcome === 'failed',
      );
      expect(first.service.log.of(PATTERNS.chargeCreated)[1]?.error).toMatchObject({
        code: 'IDEMPOTENCY_IN_PROGRESS',
      });
    } finally {
      release();
    }
    await until(
      'the first copy to end',
      () => first.service.log.of(PATTERNS.chargeCreated)[0]?.outcome === 'answered',
    );
    // Nothing settles the refused copy while its consumer lives: RabbitMQ never redelivers it on its own.
    await first.service.close();
    expect(await readyMessages(first.setup.queue!)).toBe(1);
    const second = await start(first.setup);
    try {
      await ended(second.service.log, PATTERNS.chargeCreated, 1);
      expect(second.service.log.of(PATTERNS.chargeCreated).map((d) => [d.redelivered, d.outcome])).toEqual([
        [true, 'answered'],
      ]);
      expect(second.service.effects.events).toBe(0);
    } finally {
      await second.service.close();
    }
    expect(await readyMessages(first.setup.queue!)).toBe(0);
  });

  it('a message refused for its key (missing) runs nothing and is not acknowledged: back in the queue once its consumer leaves', async () => {
    const { setup, service } = await start();
    try {
      expect(await service.send(PATTERNS.chargeByPayload, { amount: 1 })).toEqual({ error: MISSING });
      expect(service.effects.charges).toBe(0);
    } finally {
      await service.close();
    }
    expect(await readyMessages(setup.queue!)).toBe(1);
  });
});
