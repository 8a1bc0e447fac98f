import type { KeyFrom } from './interfaces/idempotent-options.interface.js';
import {
  keyHeaderOf,
  nonHeaderSource,
  type IdempotencyExchange,
  type KeySource,
} from './idempotency-exchange.js';
import { capturedValue, replayBody, type CapturedResponse, type StoredResponse } from './stored-response.js';

/** What the transports' contexts hold their headers in, structurally (no import of @nestjs/microservices). */
interface TransportContext {
  getHeaders?(): { get?(name: string): unknown; keys?(): string[] } | undefined;
  getMessage?(): { properties?: { headers?: Record<string, unknown> }; headers?: Record<string, unknown> };
  getPacket?(): { properties?: { userProperties?: Record<string, unknown> } };
  get?(name: string): unknown;
  getMap?(): unknown;
}

/**
 * A message of a microservice handler (`@MessagePattern` or `@EventPattern`) on any transport: its key from a
 * transport header, a payload path or a function; its reply stored and returned again to a duplicate.
 */
export class RpcExchange implements IdempotencyExchange {
  readonly input: { readonly data: unknown; readonly context: unknown };
  /** A RabbitMQ delivery (an `RmqContext`): whether its handler acknowledged it, seen through its channel. */
  private readonly delivery: RmqDelivery | undefined;

  constructor(data: unknown, context: unknown) {
    this.input = { data, context };
    this.delivery = RmqDelivery.of(context);
  }

  get identity(): object {
    // A transport's context object is one per delivery; a payload without one is its own identity.
    return (this.input.context ?? this.input) as object;
  }

  keySource(keyFrom: KeyFrom<never> | undefined): KeySource {
    const other = nonHeaderSource(keyFrom, this.input, { payload: this.input.data });
    if (other !== undefined) return other;
    const name = keyHeaderOf(keyFrom);
    return { from: 'value', value: stringOf(transportHeader(this.input.context as TransportContext, name)) };
  }

  defaultFingerprint(): unknown {
    return { data: this.input.data ?? null };
  }

  user(): unknown {
    return undefined;
  }

  async capture(result: unknown): Promise<CapturedResponse> {
    return capturedValue(result, this.settlement());
  }

  storedError(error: unknown, status: number): StoredResponse {
    const body = (error as { getResponse?: () => unknown; getError?: () => unknown }) ?? {};
    return {
      kind: 'error',
      status,
      headers: this.settlement(),
      body: body.getResponse?.() ?? body.getError?.() ?? null,
    };
  }

  beginHandler(): void {
    this.delivery?.hold();
  }

  settle(): void {
    this.delivery?.settle();
  }

  replay(stored: StoredResponse): unknown {
    // The handler does not run for a replay, so nothing else acknowledges this delivery: on a consumer with
    // `noAck: false` it would stay unacknowledged (holding a prefetch slot) until its channel closed, and then come
    // back again. It is settled as the handler settled the first one.
    if (stored.headers[ACKNOWLEDGED] === 'true') this.delivery?.acknowledge();
    return replayBody(stored);
  }

  /** What the record keeps of how the handler settled its delivery (RabbitMQ: whether it acknowledged it). */
  private settlement(): Record<string, string> {
    return this.delivery?.acknowledged === true ? { [ACKNOWLEDGED]: 'true' } : {};
  }
}

/**
 * Marks a record whose handler acknowledged its RabbitMQ message itself (`noAck: false`, `channel.ack(message)` in
 * the handler, as Nest documents): a replay acknowledges the duplicate, or the redelivery of a message whose ack
 * was lost. A handler that never acknowledges (`noAck: true`, the default, or an ack left to an interceptor around
 * `@Idempotent()`) leaves no mark, and a replay acknowledges nothing, so no delivery is ever acknowledged twice
 * (which RabbitMQ answers by closing the channel).
 */
const ACKNOWLEDGED = 'x-idempotency-rmq-acknowledged';

/** The part of an amqplib channel a handler settles its message with. */
interface AmqpChannel {
  ack(message: object, allUpTo?: boolean): void;
  ackAll?(): void;
}

interface AmqpMessage {
  readonly fields?: { readonly deliveryTag?: number };
}

/** The channel and message of an `RmqContext` (`[message, channel, pattern]`), structurally. */
interface RmqLikeContext {
  getMessage(): AmqpMessage;
  getChannelRef(): AmqpChannel;
  getArgs(): unknown[];
}

/** Contexts whose channel already reports to a {@link RmqDelivery}: a second interceptor reuses it. */
const deliveries = new WeakMap<object, RmqDelivery>();

/**
 * One RabbitMQ delivery: the handler gets its channel through a view that notes when the handler acknowledges this
 * message (by itself, with `allUpTo`, or with `ackAll`), so the record can say so, and holds that ack back until
 * the interceptor {@link settle}s the delivery: after the record is stored (or given back). An ack never goes out
 * before the record that says the work is done, so a connection lost between the two cannot make the broker
 * forget a message whose record was never written; and an ack that fails on a closed channel (the connection
 * dropped after the handler's work) is no error of the handler's: its record is kept, and the broker's redelivery
 * is replayed and acknowledged then.
 */
class RmqDelivery {
  acknowledged = false;
  /** The ack the handler asked for, sent when the delivery is settled. */
  private heldAck: (() => unknown) | undefined;
  /**
   * Only while the handler runs: an ack from outside it (an interceptor of the app's that settles a message
   * `@Idempotent()` refused, or one after the call) goes out at once.
   */
  private holding = false;

  private constructor(
    private readonly message: AmqpMessage,
    private readonly channel: AmqpChannel,
  ) {}

  static of(context: unknown): RmqDelivery | undefined {
    if (!isRmqContext(context)) return undefined;
    const known = deliveries.get(context);
    if (known !== undefined) return known;
    const args = context.getArgs();
    const delivery = new RmqDelivery(context.getMessage(), context.getChannelRef());
    // The context is this delivery's own (Nest makes one per message): the handler's getChannelRef() and
    // getArgByIndex(1) read this slot.
    args[1] = delivery.watchedChannel();
    deliveries.set(context, delivery);
    return delivery;
  }

  /** Acknowledges a replayed delivery (its handler did not run). */
  acknowledge(): void {
    sendAck(() => this.channel.ack(this.message));
  }

  /** From here until {@link settle}, an ack of this message is held back: the handler runs. */
  hold(): void {
    this.holding = true;
  }

  /** Sends the ack the handler asked for, if it did: the record is stored (or given back) by now. */
  settle(): void {
    this.holding = false;
    const ack = this.heldAck;
    this.heldAck = undefined;
    if (ack !== undefined) sendAck(ack);
  }

  private watchedChannel(): AmqpChannel {
    const tag = this.message.fields?.deliveryTag;
    return new Proxy(this.channel, {
      get: (target, name) => {
        const value: unknown = Reflect.get(target, name, target);
        if (name === 'ack') {
          return (message: AmqpMessage, allUpTo?: boolean) => {
            const covers =
              message === this.message ||
              (allUpTo === true && (message.fields?.deliveryTag ?? 0) >= (tag ?? 0));
            if (!covers) return target.ack(message, allUpTo);
            this.acknowledged = true;
            if (!this.holding) return target.ack(message, allUpTo);
            this.heldAck = () => target.ack(message, allUpTo);
          };
        }
        if (name === 'ackAll') {
          return () => {
            this.acknowledged = true;
            if (!this.holding) return target.ackAll?.();
            this.heldAck = () => target.ackAll?.();
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

// An ack on a channel that closed meanwhile throws: the broker requeues the message and redelivers it, and that
// delivery is replayed and acknowledged. Nothing is lost by not sending it now.
function sendAck(ack: () => unknown): void {
  try {
    ack();
  } catch {
    /* the channel is closed: the redelivery settles it */
  }
}

function isRmqContext(context: unknown): context is RmqLikeContext {
  const candidate = context as Partial<RmqLikeContext> | null | undefined;
  if (
    typeof candidate?.getMessage !== 'function' ||
    typeof candidate.getChannelRef !== 'function' ||
    typeof candidate.getArgs !== 'function'
  ) {
    return false;
  }
  const channel = candidate.getChannelRef() as Partial<AmqpChannel> | null | undefined;
  const message = candidate.getMessage() as AmqpMessage | null | undefined;
  return (
    typeof channel?.ack === 'function' &&
    typeof message?.fields?.deliveryTag === 'number' &&
    Array.isArray(candidate.getArgs())
  );
}

/** A transport header by name, as each transport keeps them; `undefined` where the transport has none. */
function transportHeader(context: TransportContext | undefined, name: string): unknown {
  if (context === undefined || context === null) return undefined;
  const lower = name.toLowerCase();
  // NATS: NatsContext.getHeaders() is a MsgHdrs (case as sent).
  const nats = context.getHeaders?.();
  if (typeof nats?.get === 'function') {
    // MsgHdrs.get() matches the name exactly by default; a header name is case-insensitive everywhere else.
    const found = nats.keys?.().find((key) => key.toLowerCase() === lower) ?? name;
    return nats.get(found) || undefined;
  }
  const message = context.getMessage?.();
  // RabbitMQ: RmqContext.getMessage().properties.headers.
  if (message?.properties?.headers !== undefined) return headerIn(message.properties.headers, name);
  // Kafka: KafkaContext.getMessage().headers (Buffers).
  if (message?.headers !== undefined) return headerIn(message.headers, name);
  // MQTT 5: MqttContext.getPacket().properties.userProperties.
  const userProperties = context.getPacket?.()?.properties?.userProperties;
  if (userProperties !== undefined) return headerIn(userProperties, name);
  // gRPC: the handler's Metadata, whose get() answers a list.
  if (typeof context.get === 'function' && typeof context.getMap === 'function') {
    return (context.get(lower) as unknown[] | undefined)?.[0];
  }
  return undefined;
}

function headerIn(headers: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(headers, name)) return headers[name];
  const lower = name.toLowerCase();
  const found = Object.keys(headers).find((key) => key.toLowerCase() === lower);
  return found === undefined ? undefined : headers[found];
}

function stringOf(value: unknown): unknown {
  if (Array.isArray(value)) return stringOf(value[0]);
  return value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
}
