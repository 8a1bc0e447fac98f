import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import {
  IdempotencyCoordinator,
  InFlightMode,
  type CoordinatedResult,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import type { Cluster, Redis } from 'ioredis';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';

/**
 * The demonstration's lease: short, so the retry after a crash takes the key over in about a second (the
 * coordinator's default, 30 s, only makes the client wait longer for the same second order).
 */
export const DEMO_RECORD_LEASE_MS = 1_000;

/**
 * DEMONSTRATION of the wrong design of the db-effect scenario (`PUT /__config {"createRecord": "redis"}`): the
 * processing record of a new order kept in a separate store (Redis, the queue's), around the order's own
 * transaction. The coordinator is the real one (claim, lease renewed while the action runs, complete); what it
 * cannot do is commit the record with the order. Killed between the order's COMMIT and the record's completion,
 * the order stays and the record is a reservation whose lease runs out: the retry takes the key over and creates
 * a second order. A duplicate in flight waits for the owner (its lease), then replays or takes over.
 */
@Injectable()
export class RecordInRedis implements OnModuleDestroy {
  // Made on first use: a process never switched to the demonstration never has this store.
  private demo: { store: RedisIdempotencyStore; coordinator: IdempotencyCoordinator } | undefined;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(REDIS_CLIENT) private readonly redis: Redis | Cluster,
  ) {}

  /** Runs `action` (its own transaction) under a record in Redis. */
  coordinate<T>(request: CoordinateRequest<T>, action: () => Promise<T>): Promise<CoordinatedResult<T>> {
    return this.coordinator().coordinateWithOutcome(request, action);
  }

  async onModuleDestroy(): Promise<void> {
    await this.demo?.store.close();
  }

  private coordinator(): IdempotencyCoordinator {
    if (this.demo === undefined) {
      // Under the queue's prefix: a shared Redis (the demo's) keeps each stack's records apart.
      const store = new RedisIdempotencyStore(this.redis, {
        keyPrefix: `${this.config.bullmqPrefix}:demo-idem:`,
      });
      const coordinator = new IdempotencyCoordinator(store, {
        inFlight: InFlightMode.Wait,
        leaseMs: DEMO_RECORD_LEASE_MS,
        renewLease: true,
      });
      this.demo = { store, coordinator };
    }
    return this.demo.coordinator;
  }
}
