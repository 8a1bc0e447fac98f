import { trace } from '@opentelemetry/api';
import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InFlightMode, type TransactionRunner } from '@retry-safe/idempotency';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { answersWithin, type ReadinessCheck } from '@retry-safe/app-shell';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import type { OrdersConfig } from '../config/orders-config.js';
import { ordersMigrations } from './migrations.js';
import type { OrdersDatabase } from './orders-database.js';
import { withPgTransaction } from './pg-transaction.js';

/** DI token of the `Kysely<OrdersDatabase>` (on the one pool of the service). */
export const ORDERS_DB = Symbol('ORDERS_DB');
/** DI token of the `pg.Pool` under {@link ORDERS_DB}, for the named statements of a payment's hot path. */
export const ORDERS_POOL = Symbol('ORDERS_POOL');
/** DI token of the orders' idempotency store (the records' table in the orders database), for its module. */
export const ORDERS_STORE = Symbol('ORDERS_STORE');
/**
 * DI token of the `TransactionRunner<pg.PoolClient>` on {@link ORDERS_POOL} (`withPgTransaction`): the
 * `runInTransaction` of orders' optimistic `@IdempotentMethod()` writes.
 */
export const ORDERS_TRANSACTIONS = Symbol('ORDERS_TRANSACTIONS');

/** The pool, its Kysely and its idempotency store, migrated; what {@link DatabaseModule} builds once. */
export interface OrdersDatabaseHandle {
  readonly pool: pg.Pool;
  readonly db: Kysely<OrdersDatabase>;
  readonly store: PostgresIdempotencyStore;
}

/**
 * Opens the pool and migrates: the idempotency store's table first (its own `migrate`, safe concurrently), then the
 * orders schema with Kysely's Migrator. A failed migration stops the start-up with its cause.
 */
export async function openOrdersDatabase(config: OrdersConfig): Promise<OrdersDatabaseHandle> {
  const pool = new pg.Pool({ ...boundedConnection(config), max: config.databasePoolSize });
  const logger = new Logger('Database');
  // A connection's error (the server stopping or restarting) must not crash the process: an idle client's is
  // reported here, a checked-out client's also fails its query, which reports it to the caller.
  pool.on('error', (error) => logger.warn({ msg: 'idle client error', error: error.message }));
  pool.on('connect', (client) =>
    client.on('error', (error) => logger.warn({ msg: 'client error', error: error.message })),
  );
  const db = new Kysely<OrdersDatabase>({ dialect: new PostgresDialect({ pool }) });
  const store = new PostgresIdempotencyStore(pool, { commandTimeoutMs: config.idempotency.commandTimeoutMs });
  try {
    await store.migrate();
    const { error } = await new Migrator({ db, provider: ordersMigrations }).migrateToLatest();
    if (error !== undefined) throw error;
  } catch (error) {
    await store.close();
    await db.destroy();
    throw new Error(`orders: migrating ${redacted(config.databaseUrl)} failed`, { cause: error });
  }
  return { pool, db, store };
}

/**
 * The settings of every connection orders opens (its pool's and the relay's `LISTEN` client): no statement runs
 * longer than `statement_timeout`, no transaction waits on this process longer than
 * `idle_in_transaction_session_timeout` (the server then ends the session and its locks go with it: a process that
 * stalls inside a transaction cannot hold rows for others), and connecting fails after `connectionTimeoutMillis`.
 */
export function boundedConnection(config: OrdersConfig): pg.ClientConfig {
  const { statementMs, idleInTransactionMs, connectMs } = config.databaseTimeouts;
  return {
    connectionString: config.databaseUrl,
    statement_timeout: statementMs,
    idle_in_transaction_session_timeout: idleInTransactionMs,
    connectionTimeoutMillis: connectMs,
  };
}

/**
 * The readiness check of the orders database: `SELECT 1` answers within `timeoutMs` (a paused server must not
 * hold `GET /health`).
 */
export function postgresReadiness(db: Kysely<OrdersDatabase>, timeoutMs: number): ReadinessCheck {
  return { name: 'postgres', check: () => answersWithin(() => sql`SELECT 1`.execute(db), timeoutMs) };
}

function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

const HANDLE = Symbol('ORDERS_DATABASE_HANDLE');

/** Closes the store (its LISTEN connection and sweep) and then the pool, after the features have stopped. */
@Injectable()
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(@Inject(HANDLE) private readonly handle: OrdersDatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.handle.store.close();
    await this.handle.db.destroy();
  }
}

/**
 * The orders database for every feature module: {@link ORDERS_DB}, {@link ORDERS_POOL}, {@link ORDERS_TRANSACTIONS},
 * and the library's `IdempotencyModule` on its Postgres store, whose coordinator keeps each record in the
 * transaction of the rows it protects (its explorer puts orders' `@IdempotentMethod()` writes behind it).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        IdempotencyModule.forRootAsync({
          inject: [ORDERS_STORE],
          useFactory: (store: PostgresIdempotencyStore) => ({
            store,
            // DatabaseShutdown closes it, before the pool it borrows.
            closeStoreOnShutdown: false,
            // Transactional calls only: a duplicate waits on the record's unique index, never on a lease.
            coordinator: { inFlight: InFlightMode.Raise, tracer: trace.getTracer('orders') },
          }),
        }),
      ],
      providers: [
        { provide: HANDLE, useFactory: () => openOrdersDatabase(config) },
        { provide: ORDERS_DB, inject: [HANDLE], useFactory: (h: OrdersDatabaseHandle) => h.db },
        { provide: ORDERS_POOL, inject: [HANDLE], useFactory: (h: OrdersDatabaseHandle) => h.pool },
        { provide: ORDERS_STORE, inject: [HANDLE], useFactory: (h: OrdersDatabaseHandle) => h.store },
        {
          provide: ORDERS_TRANSACTIONS,
          inject: [HANDLE],
          useFactory:
            ({ pool }: OrdersDatabaseHandle): TransactionRunner<pg.PoolClient> =>
            (work) =>
              withPgTransaction(pool, work),
        },
        DatabaseShutdown,
      ],
      exports: [ORDERS_DB, ORDERS_POOL, ORDERS_STORE, ORDERS_TRANSACTIONS],
    };
  }
}
