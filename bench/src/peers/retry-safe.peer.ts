import type { Redis } from 'ioredis';
import { IdempotencyCoordinator, fingerprintOf, jsonCodec } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import {
  CHARGE_REQUEST,
  connectIoredis,
  InProgressExpiry,
  SetUpPeer,
  type Charge,
  type ChargeAction,
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

interface RetrySafeState {
  readonly redis: Redis;
  readonly store: RedisIdempotencyStore;
  readonly coordinator: IdempotencyCoordinator;
  readonly ttlMs: number;
}

/**
 * Our coordinator, as docs/idempotency-api.md shows it: `RedisIdempotencyStore` on an ioredis client and
 * `IdempotencyCoordinator` with `inFlight: 'raise'` (a duplicate in progress is refused, like every peer here
 * does by default).
 */
export class RetrySafePeer extends SetUpPeer<RetrySafeState> {
  readonly name: string;
  readonly capabilities: PeerCapabilities;

  readonly #renewLease: boolean;
  readonly #autoPipelining: boolean;
  readonly #codec = jsonCodec<Charge>();

  constructor({ renewLease = true, autoPipelining = false }: RetrySafePeerOptions = {}) {
    super();
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

  protected async open(redisUrl: string, settings: PeerSettings): Promise<RetrySafeState> {
    const redis = await connectIoredis(redisUrl, { enableAutoPipelining: this.#autoPipelining });
    const store = new RedisIdempotencyStore(redis, { keyPrefix: 'bench-retry-safe:' });
    const coordinator = new IdempotencyCoordinator(store, {
      inFlight: 'raise',
      leaseMs: settings.inProgressMs,
      renewLease: this.#renewLease,
    });
    return { redis, store, coordinator, ttlMs: settings.resultTtlMs };
  }

  protected async shut({ redis, store }: RetrySafeState): Promise<void> {
    // The store closes only its own subscriber connection, not the client it was given.
    await store.close();
    await redis.quit();
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    const { coordinator, ttlMs } = this.state;
    return coordinator.coordinate(
      {
        operation: 'bench.charge',
        key,
        ttlMs,
        codec: this.#codec,
        // Per call, as a service would fingerprint each request (the peers hash theirs per call too).
        fingerprint: fingerprintOf({ ...CHARGE_REQUEST }),
      },
      () => action(),
    );
  }
}
