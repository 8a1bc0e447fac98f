import { sql, type Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { MAX_AMOUNT_MINOR, OrderStatus } from '@retry-safe/contracts';

const statuses = sql.join(Object.values(OrderStatus).map((status) => sql.lit(status)));

/**
 * The orders schema, in order. Applied by Kysely's Migrator at start-up (it holds a lock row while it migrates, so
 * replicas starting together apply each migration once). Never edit a migration that has shipped: add one.
 */
const migrations: Record<string, Migration> = {
  '0001-orders': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('orders')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('tenant_id', 'uuid', (c) => c.notNull())
        .addColumn('amount', 'integer', (c) =>
          c.notNull().check(sql`amount BETWEEN 1 AND ${sql.lit(MAX_AMOUNT_MINOR)}`),
        )
        .addColumn('currency', 'char(3)', (c) => c.notNull())
        .addColumn('paid_amount', 'integer', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`paid_amount >= 0`),
        )
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN (${statuses})`))
        .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      // The tenant's list, newest first, walked by (created_at, id) cursors.
      await sql`CREATE INDEX orders_tenant_newest ON orders (tenant_id, created_at DESC, id DESC)`.execute(
        db,
      );
      await db.schema
        .createTable('order_payments')
        .addColumn('charge_id', 'uuid', (c) => c.primaryKey())
        .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id'))
        .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
        .addColumn('currency', 'char(3)', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('provider_charge_id', 'text', (c) => c.notNull())
        .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema.createIndex('order_payments_order').on('order_payments').column('order_id').execute();
    },
  },
  '0002-invoices': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('invoice_requests')
        .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('invoice_requests_pkey', ['order_id', 'version'])
        .execute();
      await db.schema
        .createTable('invoice_outbox')
        .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
        .addColumn('delivery_id', 'uuid', (c) => c.notNull().unique())
        .addColumn('order_id', 'uuid', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('published_at', sql`timestamptz(3)`)
        .addForeignKeyConstraint('invoice_outbox_request', ['order_id', 'version'], 'invoice_requests', [
          'order_id',
          'version',
        ])
        .execute();
      // What the relay scans: only the rows still to publish, oldest first.
      await sql`CREATE INDEX invoice_outbox_pending ON invoice_outbox (id) WHERE published_at IS NULL`.execute(
        db,
      );
    },
  },
  '0003-outbox-trace-context': {
    async up(db: Kysely<unknown>): Promise<void> {
      // The trace of the request that wrote the row, so the job's deliveries continue it (null: not traced).
      await db.schema.alterTable('invoice_outbox').addColumn('trace_context', 'text').execute();
    },
  },
  '0004-outbox-lease-and-retention': {
    async up(db: Kysely<unknown>): Promise<void> {
      // The relay's lease: a row claimed until then is being published by one relay, outside any transaction.
      await db.schema
        .alterTable('invoice_outbox')
        .addColumn('claimed_until', sql`timestamptz(3)`)
        .execute();
      // A request remembers that it was published, so its status outlives the outbox rows the retention deletes.
      await db.schema
        .alterTable('invoice_requests')
        .addColumn('published_at', sql`timestamptz(3)`)
        .execute();
      await sql`UPDATE invoice_requests r SET published_at = o.first
        FROM (SELECT order_id, version, min(published_at) AS first FROM invoice_outbox
              WHERE published_at IS NOT NULL GROUP BY order_id, version) o
        WHERE r.order_id = o.order_id AND r.version = o.version`.execute(db);
      // What the retention scans: only the published rows, oldest first.
      await sql`CREATE INDEX invoice_outbox_published ON invoice_outbox (published_at) WHERE published_at IS NOT NULL`.execute(
        db,
      );
    },
  },
  '0005-payment-reservations': {
    async up(db: Kysely<unknown>): Promise<void> {
      // Amounts in bigint: a sum of charges is not bounded by one order's amount. Rewrites the tables (short on the
      // sizes here; an ACCESS EXCLUSIVE lock while it runs). What payments still in flight hold of an order's balance.
      await sql`ALTER TABLE orders
        ALTER COLUMN amount TYPE bigint,
        ALTER COLUMN paid_amount TYPE bigint,
        ADD COLUMN reserved_amount bigint NOT NULL DEFAULT 0 CHECK (reserved_amount >= 0)`.execute(db);
      await sql`ALTER TABLE order_payments ALTER COLUMN amount TYPE bigint`.execute(db);
      // One reservation per payment key (the tenant's idempotency key): its retries find it and reserve nothing.
      await db.schema
        .createTable('order_payment_reservations')
        .addColumn('tenant_id', 'uuid', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id'))
        .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
        .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', sql`timestamptz(3)`, (c) => c.notNull())
        .addPrimaryKeyConstraint('order_payment_reservations_pkey', ['tenant_id', 'key'])
        .execute();
      // What the sweep scans: the oldest expiry first.
      await db.schema
        .createIndex('order_payment_reservations_expiry')
        .on('order_payment_reservations')
        .column('expires_at')
        .execute();
    },
  },
};

/** The migrations of this build, for Kysely's Migrator (in code, so `dist/` needs no SQL files beside it). */
export const ordersMigrations: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
