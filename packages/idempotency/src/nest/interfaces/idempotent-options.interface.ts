import type { Duration } from '../../duration.js';
import type { InFlightMode } from '../../options.js';

/**
 * The request as `fingerprint` and `scope` see it unless you name your platform's type: what Express's `Request`
 * and Fastify's `FastifyRequest` share. Name yours for its full type, e.g. `@Idempotent<FastifyRequest>({...})`.
 */
export interface IdempotentRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The authenticated principal, where an auth guard set one (Passport and most guards do). */
  readonly user?: unknown;
}

/**
 * A message of a microservice handler (`@MessagePattern`, `@EventPattern`), as `keyFrom`, `fingerprint` and `scope`
 * see it: its payload and the transport's context (`NatsContext`, `RmqContext`, `KafkaContext`, ...).
 */
export interface IdempotentMessage<Data = unknown, Context = unknown> {
  readonly data: Data;
  readonly context: Context;
}

/** A GraphQL field (a `@Mutation()`), as `keyFrom`, `fingerprint` and `scope` see it. */
export interface IdempotentGraphqlCall<Args = Record<string, unknown>, Context = unknown> {
  readonly args: Args;
  /** The GraphQL context (Apollo: `{ req }`; Mercurius: `{ reply }`). */
  readonly context: Context;
  readonly info: { readonly fieldName: string };
}

/**
 * Where a request's idempotency key comes from:
 * - `{ header }`: an HTTP header; for a message, a transport header (NATS headers, RabbitMQ message headers, Kafka
 *   headers, MQTT 5 user properties, gRPC metadata); for GraphQL, the header of the HTTP request. An HTTP header is
 *   parsed as the draft says (an sf-string or a bare token, refused when sent twice);
 * - `{ payload: 'meta.eventId' }`: a dotted path in a message's payload;
 * - `{ arg: 'input.requestId' }`: a dotted path in a GraphQL field's arguments;
 * - a function of the request (the message, the GraphQL call) that returns the key, or `undefined` when it has none.
 * A key from a payload, an argument or a function is taken as it is: a string (or a number), checked by the same
 * rules as a header's.
 */
export type KeyFrom<Req = unknown> =
  | { readonly header: string }
  | { readonly payload: string }
  | { readonly arg: string }
  | ((req: Req) => string | number | undefined);

/**
 * Decides whether an outcome is final, i.e. stored and replayed to every retry: `error` is `undefined` when the
 * handler returned, else what it threw (`status` is then its `getStatus()`, or 500).
 */
export type StoreIf = (status: number, error: unknown) => boolean;

/**
 * Options of `@Idempotent()`, on a route or on a controller class; the module's options are the defaults of
 * both. What a route says wins over its class, which wins over the module.
 *
 * @typeParam Req - the request type `fingerprint` and `scope` receive (`Request` of Express, `FastifyRequest`).
 */
export interface IdempotentOptions<Req = IdempotentRequest> {
  /**
   * Names the operation: records of two operations never meet (e.g. `payment.charge`). 1-100 characters, no `:`;
   * with a `scope`, at most 76 (the scope is appended).
   * @default '<Controller class>.<method>'
   */
  readonly operation?: string;
  /**
   * How long a final response is replayed: milliseconds, or a string such as `'90s'`, `'15m'`, `'24h'`, `'7d'`
   * (1 s to 30 days).
   * @default the module's `ttl` ('24h')
   */
  readonly ttl?: Duration;
  /**
   * What makes two requests "the same": a key sent again with another fingerprint is refused (422
   * `idempotency_key_reused`). Hashed with `fingerprintOf`, so it must be JSON-like.
   * @default the method, the path (without the query) and the parsed body (a binary body by its SHA-256)
   */
  readonly fingerprint?: (req: Req) => unknown;
  /**
   * Separates callers, e.g. `(req) => req.user.tenantId`: the same key in two scopes is two records. Must return a
   * non-empty string or a finite number (anything else is a 500 `idempotency_route_misconfigured`, never a shared
   * bucket); any characters work. `false` says the route is shared by every caller on purpose: without a scope, a
   * request that carries `req.user` logs one warning per route.
   * @default undefined (one bucket per operation, with the warning above)
   */
  readonly scope?: ((req: Req) => string | number) | false;
  /**
   * Where the key comes from.
   * @default `{ header: 'Idempotency-Key' }` (HTTP and GraphQL: the HTTP header; a message: its transport header)
   */
  readonly keyFrom?: KeyFrom<Req>;
  /** What a request that finds its key in flight does. @default the coordinator's (`'wait'`) */
  readonly inFlight?: InFlightMode;
  /**
   * Response headers stored and replayed with the status and the body (`Content-Type` always is).
   * `set-cookie`, `cookie`, `authorization` and `proxy-authorization` are refused at start-up: a replay goes to
   * whoever holds the key.
   * @default the module's (`['Location']`)
   */
  readonly replayHeaders?: readonly string[];
  /**
   * Which outcomes are final. The default stores successes only: a handler that throws stores nothing and a retry
   * runs it again (`@nestjs/idempotency` stores every status below 500, Stripe every answer).
   * @default the module's (`(status, error) => error === undefined`)
   */
  readonly storeIf?: StoreIf;
  /**
   * The largest streamed body (`StreamableFile`, a `Readable`) stored byte-exact with its content type. A larger
   * one still reaches this caller whole, but its record says it cannot be replayed: a retry gets 500
   * `idempotency_result_unencodable` and the handler never runs again.
   * @default the module's (1 MiB)
   */
  readonly maxStoredBytes?: number;
}
