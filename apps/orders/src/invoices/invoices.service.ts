import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvoiceJobSchema } from '@retry-safe/contracts';
import type { Transaction } from 'kysely';
import {
  InvoiceVersionConflictError,
  InvoiceVersionLimitError,
  OrderNotFoundError,
} from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import type { OrdersDatabase } from '../database/orders-database.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { INVOICE_DELIVERY, type InvoiceDelivery } from './invoice-delivery.js';
import { InvoiceRateLimiter } from './invoice-rate-limiter.js';
import { InvoicesRepository } from './invoices.repository.js';

/** What the producer tells its caller: the id of this delivery of the invoice. */
export interface InvoiceReceipt {
  deliveryId: string;
}

/**
 * Invoice requests. A tenant's requests are rate-limited first; then one transaction records the request (one per
 * order and version, at most `INVOICE_MAX_VERSIONS` versions per order; another address for a recorded version is
 * refused) with what the {@link InvoiceDelivery} in force delivers it by (the design: an outbox row, which the
 * relay publishes after the commit). Every call is a new delivery with a fresh `deliveryId` (also the BullMQ job
 * id): deduplication by order and version is the worker's business.
 */
@Injectable()
export class InvoicesService {
  private readonly logger = new Logger(InvoicesService.name);

  constructor(
    private readonly orders: OrdersRepository,
    private readonly invoices: InvoicesRepository,
    private readonly faults: OrderFaults,
    private readonly rateLimiter: InvoiceRateLimiter,
    @Inject(INVOICE_DELIVERY) private readonly delivery: InvoiceDelivery,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  /** Requests `orderId`'s invoice `version` for `email`; resolves once the delivery is committed. */
  async publish(
    tenantId: string,
    orderId: string,
    version: number,
    email: string,
    requestId: string,
  ): Promise<InvoiceReceipt> {
    const job = InvoiceJobSchema.parse({
      deliveryId: randomUUID(),
      tenantId,
      orderId,
      invoiceVersion: version,
      email,
    });
    // Before the transaction: a refused request holds no connection and writes nothing.
    await this.rateLimiter.admit(tenantId);
    const writes = (trx: Transaction<OrdersDatabase>) => this.record(trx, tenantId, orderId, version, email);
    await this.delivery.deliver(job, writes, async () => {
      this.logger.log({
        msg: 'invoice delivery committed',
        requestId,
        deliveryId: job.deliveryId,
        orderId,
        version,
      });
      await this.faults.trip(OrderFaultPoint.AfterInvoiceCommit, { 'delivery-id': job.deliveryId });
    });
    return { deliveryId: job.deliveryId };
  }

  /** The request, in the delivery's transaction: the order is the tenant's, the version within the limit. */
  private async record(
    trx: Transaction<OrdersDatabase>,
    tenantId: string,
    orderId: string,
    version: number,
    email: string,
  ): Promise<void> {
    if ((await this.orders.find(trx, tenantId, orderId)) === undefined) throw new OrderNotFoundError(orderId);
    const { maxVersions } = this.config.invoices;
    const recorded = await this.invoices.request(trx, orderId, version, email, maxVersions);
    if (recorded === undefined) throw new InvoiceVersionLimitError(orderId, maxVersions);
    if (recorded !== email) throw new InvoiceVersionConflictError(orderId, version);
  }
}
