import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { InternalTokenAuthenticator } from '@retry-safe/app-shell/http';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { Kysely } from 'kysely';
import { ORDERS_PROBLEMS } from './common/orders-problems.js';
import { ORDERS_CONFIG, type OrdersConfig } from './config/orders-config.js';
import { ordersSettings } from './config/orders-settings.js';
import { DatabaseModule, ORDERS_DB, postgresReadiness } from './database/database.module.js';
import type { OrdersDatabase } from './database/orders-database.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { MetricsService } from './metrics/metrics.service.js';
import { OrdersModule } from './orders/orders.module.js';
import { PaymentsModule } from './payments/payments.module.js';

/** Internal service between the gateway and payments: owns the orders (Postgres), applies their charges once,
 * and produces the invoice queue. */
@Module({})
export class AppModule extends shellAppModule((config: OrdersConfig) => ({
  configToken: ORDERS_CONFIG,
  // The wrong designs of the db-effect, apply-once and outbox scenarios, only through `PUT /__config`.
  settings: ordersSettings(),
  problems: ORDERS_PROBLEMS,
  // A hop inside the chain: the caller's request id and deadline carry on; the gateway (authenticated) sends the tenant.
  requestContext: {
    service: 'orders',
    requestId: 'propagate',
    requestBudgetMs: config.requestBudgetMs,
    tenantOf: (req) => req.headers[ChainHeader.Tenant],
  },
  // Only the gateway (holding INTERNAL_TOKEN) may call: the tenant header is its word.
  authenticate: new InternalTokenAuthenticator(config.internalToken),
  bodyLimitBytes: config.bodyLimitBytes,
  metrics: MetricsService,
  redis: {
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    commandTimeoutMs: config.redisCommandTimeoutMs,
  },
  readiness: {
    inject: [ORDERS_DB],
    useFactory: (db: Kysely<OrdersDatabase>) => [postgresReadiness(db, config.idempotency.commandTimeoutMs)],
  },
  features: [DatabaseModule.forRoot(config), OrdersModule, PaymentsModule, InvoicesModule],
})) {}
