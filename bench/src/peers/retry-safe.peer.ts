import { Redis } from 'ioredis';
import { IdempotencyCoordinator, fingerprintOf, jsonCodec } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import {
  CHARGE_REQUEST,
  InProgressExpiry,
  type Charge,
  type ChargeAction,
  type Peer,
  type PeerCapabilities,
  type PeerSettings,
} from './peer.js';

/** Options of {@link RetrySafePeer}. */
export interface RetrySafePeerOptions {
  /**
   * Passed to the coordinator. The stale-owner scenario turns it off so the action really outlives its lease.
   * @default true
   */
  readonly renewLease?: boolean;
  /**
   * Creates the ioredis client with `enableAutoPipelining` (commands wait for `setImmediate` and go out as one
   * pipeline), for comparison: the store already sends the commands of one tick in one write.
   * @default false
   */
  readonly autoPipelining?: boolean;
}

/**
 * Our coordinator, as docs/idempotency-api.md shows it: `RedisIdempotencyStore` on an ioredis client and
 * `IdempotencyCoordinator` with `inFlight: 'raise'` (a duplicate in progress is refused, like every peer here
 * does by default).
 */
export class RetrySafePeer implements Peer {
  readonly name: string;
  readonly capabilities: PeerCapabilities;

  readonly #renewLease: boolean;
  readonly #autoPipelining: boolean;
  readonly #codec = jsonCodec<Charge>();
  #redis: Redis | undefined;
  #store: RedisIdempotencyStore | undefined;
  #coordinator: IdempotencyCoordinator | undefined;
  #ttlMs = 0;

  constructor({ renewLease = true, autoPipelining = false }: RetrySafePeerOptions = {}) {
    this.#renewLease = renewLease;
    this.#autoPipelining = autoPipelining;
    this.name = `@retry-safe/idempotency (ours${autoPipelining ? ', enableAutoPipelining' : ''})`;
    this.capabilities = {
      atomicClaim: true,
      inProgressExpiry: InProgressExpiry.Lease,
      payloadCheck: true,
      ownerCheckedComplete: true,
      storesBeforeReturning: true,
      redisClient: autoPipelining ? 'ioredis 5 with enableAutoPipelining: true' : 'ioredis 5',
      wiring:
        "new IdempotencyCoordinator(new RedisIdempotencyStore(ioredis, { keyPrefix }), { inFlight: 'raise', " +
        'leaseMs, renewLease }); coordinate({ operation, key, ttlMs, codec: jsonCodec(), fingerprint: ' +
        'fingerprintOf(request) }, action).',
    } as const;
  }

  async setup(redisUrl: string, settings: PeerSettings): Promise<void> {
    this.#redis = new Redis(redisUrl, { lazyConnect: true, enableAutoPipelining: this.#autoPipelining });
    await this.#redis.connect();
    this.#store = new RedisIdempotencyStore(this.#redis, { keyPrefix: 'bench-retry-safe:' });
    this.#coordinator = new IdempotencyCoordinator(this.#store, {
      inFlight: 'raise',
      leaseMs: settings.inProgressMs,
      renewLease: this.#renewLease,
    });
    this.#ttlMs = settings.resultTtlMs;
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    if (!this.#coordinator) throw new Error(`${this.name}: setup() was not called`);
    return this.#coordinator.coordinate(
      {
        operation: 'bench.charge',
        key,
        ttlMs: this.#ttlMs,
        codec: this.#codec,
        // Per call, as a service would fingerprint each request (the peers hash theirs per call too).
        fingerprint: fingerprintOf({ ...CHARGE_REQUEST }),
      },
      () => action(),
    );
  }

  async close(): Promise<void> {
    // The store closes only its own subscriber connection, not the client it was given.
    await this.#store?.close();
    await this.#redis?.quit();
    this.#store = undefined;
    this.#redis = undefined;
    this.#coordinator = undefined;
  }
}
