import { getSharedIdempotencyService, idempotency } from 'express-idempotency';
import type { IdempotencyResource } from 'express-idempotency';
// A CommonJS module with `exports.default`: under Node's ESM loader the default import is `module.exports`.
import redisAdapterModule from 'express-idempotency-redis-adapter';
import {
  CHARGE_REQUEST,
  InProgressExpiry,
  SetUpPeer,
  type Charge,
  type ChargeAction,
  type PeerSettings,
} from './peer.js';

const RedisAdapter = redisAdapterModule.default;

/**
 * The adapter's own class, unchanged, except that it remembers the writes still running: express-idempotency
 * stores the response in a fire-and-forget hook on `res.send`, after the client already has it, and
 * {@link ExpressIdempotencyPeer.drain} must be able to wait for those writes before Redis is measured or closed.
 */
class TrackedRedisAdapter extends RedisAdapter {
  readonly #pending = new Set<Promise<void>>();

  override async update(resource: IdempotencyResource): Promise<void> {
    const write = super.update(resource);
    this.#pending.add(write);
    try {
      await write;
    } finally {
      this.#pending.delete(write);
    }
  }

  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}

/**
 * The part of an Express `Request` the middleware reads (`get`, `headers`, `method`, `url`, `query`, `body`).
 * The middleware is driven without an HTTP server so that no row in the table pays for HTTP.
 */
class StubRequest {
  readonly method = 'POST';
  readonly url = '/charges';
  readonly query = {};
  readonly body = { ...CHARGE_REQUEST };
  readonly headers: Record<string, string>;

  constructor(key: string) {
    this.headers = { 'idempotency-key': key, 'content-type': 'application/json' };
  }

  get(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }
}

/** The part of an Express `Response` the middleware uses; `send` records the body as Express would send it. */
class StubResponse {
  statusCode = 200;
  sentBody: unknown;
  readonly #headers: Record<string, unknown> = {};

  setHeader(name: string, value: unknown): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  getHeaders(): Record<string, unknown> {
    return { ...this.#headers };
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  send(body: unknown): this {
    this.sentBody = body;
    return this;
  }
}

interface ExpressIdempotencyState {
  readonly adapter: TrackedRedisAdapter;
  readonly middleware: ReturnType<typeof idempotency>;
}

/**
 * express-idempotency with express-idempotency-redis-adapter, as its README wires it: the `idempotency({
 * dataAdapter })` middleware in front of a route handler that returns early when
 * `getSharedIdempotencyService().isHit(req)` and otherwise does the work and calls `res.send`.
 *
 * Deviation: the middleware is called directly with stub Express request/response objects instead of behind an
 * HTTP server (the other libraries are not measured through HTTP either). The adapter creates its own node-redis
 * 4 client from `connectionConfig`, as documented. It has no in-progress expiry: a request in progress is kept
 * for the adapter's `ttl` (one day by default), like a result.
 */
export class ExpressIdempotencyPeer extends SetUpPeer<ExpressIdempotencyState> {
  readonly name = 'express-idempotency';
  readonly capabilities = {
    atomicClaim: false,
    inProgressExpiry: InProgressExpiry.RecordTtl,
    payloadCheck: true,
    ownerCheckedComplete: false,
    storesBeforeReturning: false,
    redisClient:
      'node-redis 4 (@redis/client 1), created by express-idempotency-redis-adapter from connectionConfig',
    wiring:
      'idempotency({ dataAdapter: new RedisAdapter({ connectionConfig: { url }, ttl }) }) called with stub ' +
      'req/res (no HTTP server); the handler returns when getSharedIdempotencyService().isHit(req), else runs ' +
      'the action and res.status(201).send(json); reportError(req) on failure. The result is stored after ' +
      'send (fire-and-forget); figures include that write only in the command counts.',
  } as const;

  protected async open(redisUrl: string, settings: PeerSettings): Promise<ExpressIdempotencyState> {
    const adapter = new TrackedRedisAdapter({
      connectionConfig: { url: redisUrl },
      ttl: Math.ceil(settings.resultTtlMs / 1000),
    });
    await adapter.connect();
    return { adapter, middleware: idempotency({ dataAdapter: adapter }) };
  }

  protected async shut({ adapter }: ExpressIdempotencyState): Promise<void> {
    await adapter.settled();
    await adapter.disconnect();
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    const { middleware } = this.state;
    // The stubs implement only what the middleware touches, hence the casts to Express' full types.
    const stubRequest = new StubRequest(key);
    const res = new StubResponse();
    const req = stubRequest as unknown as Parameters<typeof middleware>[0];
    return new Promise<Charge>((resolve, reject) => {
      // The route handler, as the README writes it; Express would call it as `next()`.
      const next = (error?: unknown): void => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const service = getSharedIdempotencyService();
        if (service.isHit(req)) {
          resolve(JSON.parse(String(res.sentBody)) as Charge);
          return;
        }
        action().then(
          (charge) => {
            res.setHeader('content-type', 'application/json; charset=utf-8');
            res.status(201).send(JSON.stringify(charge));
            resolve(charge);
          },
          (failure: unknown) => {
            service
              .reportError(req)
              .then(() => reject(failure instanceof Error ? failure : new Error(String(failure))), reject);
          },
        );
      };
      middleware(req, res as unknown as Parameters<typeof middleware>[1], next).catch(reject);
    });
  }

  async drain(): Promise<void> {
    await this.stateIfOpen?.adapter.settled();
  }
}
