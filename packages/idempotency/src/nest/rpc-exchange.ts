import type { KeyFrom } from './interfaces/idempotent-options.interface.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  nonHeaderSource,
  type IdempotencyExchange,
  type KeySource,
} from './idempotency-exchange.js';
import type { IdempotentRoute } from './idempotent-route.js';
import { replayBody, type CapturedResponse, type StoredResponse } from './stored-response.js';

/** What the transports' contexts hold their headers in, structurally (no import of @nestjs/microservices). */
interface TransportContext {
  getHeaders?(): { get?(name: string): unknown } | undefined;
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

  constructor(data: unknown, context: unknown) {
    this.input = { data, context };
  }

  get identity(): object {
    // A transport's context object is one per delivery; a payload without one is its own identity.
    return (this.input.context ?? this.input) as object;
  }

  keySource(keyFrom: KeyFrom<never> | undefined): KeySource {
    const other = nonHeaderSource(keyFrom, this.input, { payload: this.input.data });
    if (other !== undefined) return other;
    const name = keyFrom !== undefined && 'header' in keyFrom ? keyFrom.header : IDEMPOTENCY_KEY_HEADER;
    return { from: 'value', value: stringOf(transportHeader(this.input.context as TransportContext, name)) };
  }

  defaultFingerprint(): unknown {
    return { data: this.input.data ?? null };
  }

  user(): unknown {
    return undefined;
  }

  async capture(result: unknown): Promise<CapturedResponse> {
    return { stored: { status: 200, headers: {}, body: result }, body: result };
  }

  statusOfError(error: unknown): number {
    const status = (error as { getStatus?: () => unknown } | null)?.getStatus?.();
    return typeof status === 'number' ? status : 500;
  }

  storedError(error: unknown, status: number): StoredResponse {
    const body = (error as { getResponse?: () => unknown; getError?: () => unknown }) ?? {};
    return { kind: 'error', status, headers: {}, body: body.getResponse?.() ?? body.getError?.() ?? null };
  }

  replay(stored: StoredResponse, _route?: IdempotentRoute): unknown {
    return replayBody(stored);
  }
}

/** A transport header by name, as each transport keeps them; `undefined` where the transport has none. */
function transportHeader(context: TransportContext | undefined, name: string): unknown {
  if (context === undefined || context === null) return undefined;
  const lower = name.toLowerCase();
  // NATS: NatsContext.getHeaders() is a MsgHdrs (case as sent).
  const nats = context.getHeaders?.();
  if (typeof nats?.get === 'function') return nats.get(name) || nats.get(lower) || undefined;
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
