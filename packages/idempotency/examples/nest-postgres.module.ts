import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { ChargesController } from './nest-charges.controller.js';

export const PG_POOL = Symbol('PG_POOL');

@Module({
  providers: [
    {
      provide: PG_POOL,
      useFactory: () => new pg.Pool({ connectionString: 'postgres://127.0.0.1/app', max: 10 }),
    },
  ],
  exports: [PG_POOL],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  // The pool is the app's: the idempotency store stops only its own sweeper at shutdown.
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}

@Module({
  imports: [
    DatabaseModule,
    IdempotencyModule.forRootAsync({
      imports: [DatabaseModule],
      inject: [PG_POOL],
      useFactory: async (pool: pg.Pool) => {
        const store = new PostgresIdempotencyStore(pool, { table: 'idempotency_records' });
        // Creates or upgrades the table and its functions (or run the versioned SQL with your migrations).
        await store.migrate();
        return { store, ttl: '24h' as const };
      },
    }),
  ],
  controllers: [ChargesController],
})
export class AppModule {}
