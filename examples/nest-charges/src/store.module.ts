import { Inject, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { IdempotencyStore } from '@retry-safe/idempotency';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { StoreConfig } from './config.js';

/** DI token of the idempotency store, for `IdempotencyModule.forRootAsync({ inject })`. */
export const IDEMPOTENCY_RECORDS = Symbol('IDEMPOTENCY_RECORDS');

/** A store and the connection it runs on, which this app opened and so closes. */
interface OpenStore {
  readonly store: IdempotencyStore & { close(): Promise<void> };
  closeConnection(): Promise<void>;
}

async function openStore(config: StoreConfig): Promise<OpenStore> {
  if (config.kind === 'redis') {
    const redis = new Redis(config.url);
    const store = new RedisIdempotencyStore(redis, { keyPrefix: config.keyPrefix });
    return { store, closeConnection: async () => void (await redis.quit()) };
  }
  const pool = new pg.Pool({ connectionString: config.url });
  // An idle connection the server ends must not crash the app; the next query fails (or reconnects) instead.
  pool.on('error', (error) => new Logger('StoreModule').warn(`idle PostgreSQL connection: ${error.message}`));
  const store = new PostgresIdempotencyStore(pool);
  // Creates the table and its functions if absent: safe from every instance at start-up, one read once current.
  await store.migrate();
  return { store, closeConnection: () => pool.end() };
}

const OPEN_STORE = Symbol('OPEN_STORE');

/**
 * The idempotency store on Redis (ioredis) or PostgreSQL (pg), and its client or pool. At shutdown it closes the
 * store (what the store opened itself: Redis' subscriber, PostgreSQL's LISTEN connection and sweep) before the
 * client or pool under it, so `IdempotencyModule` is told not to close it (`closeStoreOnShutdown: false`).
 */
@Module({})
export class StoreModule implements OnApplicationShutdown {
  static forRoot(config: StoreConfig): DynamicModule {
    return {
      module: StoreModule,
      providers: [
        { provide: OPEN_STORE, useFactory: () => openStore(config) },
        { provide: IDEMPOTENCY_RECORDS, inject: [OPEN_STORE], useFactory: (open: OpenStore) => open.store },
      ],
      exports: [IDEMPOTENCY_RECORDS],
    };
  }

  constructor(@Inject(OPEN_STORE) private readonly open: OpenStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.open.store.close();
    await this.open.closeConnection();
  }
}
