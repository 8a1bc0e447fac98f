import { Module } from '@nestjs/common';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import { InFlightMode } from '@retry-safe/idempotency';
import { IdempotencyCoordinator, IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import type { Cluster, Redis } from 'ioredis';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';

/**
 * The demonstration's lease: short, so the retry after a crash takes the key over in about a second (the
 * coordinator's default, 30 s, only makes the client wait longer for the same second order).
 */
export const DEMO_RECORD_LEASE_MS = 1_000;

/** DI token of the coordinator whose records live in Redis: the record-in-Redis demonstration's only. */
export const REDIS_RECORDS_COORDINATOR = Symbol('REDIS_RECORDS_COORDINATOR');

/**
 * A second `IdempotencyModule` (not global), on a Redis store under the queue's prefix (a shared Redis, the demo's,
 * keeps each stack's records apart): what the db-effect scenario's demonstration keeps its records in. It exports
 * its coordinator under {@link REDIS_RECORDS_COORDINATOR} alone, so every other provider still gets the orders
 * database's; it does not explore (`explore: false`), so the app's `@IdempotentMethod()` writes stay behind the
 * orders database's. The store borrows the shell's Redis client and makes nothing until the demonstration's first
 * call.
 */
@Module({
  imports: [
    IdempotencyModule.forRootAsync({
      isGlobal: false,
      inject: [ORDERS_CONFIG, REDIS_CLIENT],
      useFactory: (config: OrdersConfig, redis: Redis | Cluster) => ({
        store: new RedisIdempotencyStore(redis, { keyPrefix: `${config.bullmqPrefix}:demo-idem:` }),
        coordinator: { inFlight: InFlightMode.Wait, leaseMs: DEMO_RECORD_LEASE_MS, renewLease: true },
        // orders' @IdempotentMethod() writes are the orders database's module's to wrap, never this one's.
        explore: false,
      }),
    }),
  ],
  // Resolved here, where the module's own import comes before the global one.
  providers: [{ provide: REDIS_RECORDS_COORDINATOR, useExisting: IdempotencyCoordinator }],
  exports: [REDIS_RECORDS_COORDINATOR],
})
export class RecordInRedisModule {}
