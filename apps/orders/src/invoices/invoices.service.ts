import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell';
import { InvoiceJobSchema } from '@retry-safe/contracts';
import {
  InvoiceVersionConflictError,
  InvoiceVersionLimitError,
  OrderNotFoundError,
} from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { InvoicePublishMode, type OrdersSettings } from '../config/orders-settings.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { InvoiceRateLimiter } from './invoice-rate-limiter.js';
import { InvoicesRepository } from './invoices.repository.js';
import { OutboxRelay } from './outbox-relay.service.js';

/** What the producer tells its caller: the id of this delivery of the invoice. */
export interface InvoiceReceipt {
  deliveryId: string;
}

/**
 * Invoice requests, through an outbox. A tenant's requests are rate-limited first; then one transaction records
 * the request (one per order and version, at most `INVOICE_MAX_VERSIONS` versions per order; another address for
 * a recorded version is refused) and the delivery to publish; the relay puts it on the queue after the
 * commit. A crash between the commit and the publication loses nothing (the row waits for the relay), and there is
 * no publication of a request that did not commit. Every call is a new delivery with a fresh `deliveryId` (also the
 * BullMQ job id): deduplication by order and version is the worker's business. The outbox scenario's
 * demonstration (`invoicePublish: publish-after-commit`) commits the request alone and publishes after the commit.
 */
@Injectable()
export class InvoicesService {
  private readonly logger = new Logger(InvoicesService.name);

  constructor(
    private readonly orders: OrdersRepository,
    private readonly invoices: InvoicesRepository,
    private readonly faults: OrderFaults,
    private readonly settings: RuntimeSettings<OrdersSettings>,
    private readonly relay: OutboxRelay,
    private readonly rateLimiter: InvoiceRateLimiter,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  /** Requests `orderId`'s invoice `version` for `email`; resolves once the delivery is committed to the outbox. */
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
    const outbox = this.settings.current.invoicePublish === InvoicePublishMode.Outbox;
    // Before the transaction: a refused request holds no connection and writes nothing.
    await this.rateLimiter.admit(tenantId);
    const { maxVersions } = this.config.invoices;
    await this.invoices.db.transaction().execute(async (trx) => {
      if ((await this.orders.find(trx, tenantId, orderId)) === undefined)
        throw new OrderNotFoundError(orderId);
      const recorded = await this.invoices.request(trx, orderId, version, email, maxVersions);
      if (recorded === undefined) throw new InvoiceVersionLimitError(orderId, maxVersions);
      if (recorded !== email) throw new InvoiceVersionConflictError(orderId, version);
      if (outbox) await this.invoices.addToOutbox(trx, job);
    });
    this.logger.log({
      msg: 'invoice delivery committed',
      requestId,
      deliveryId: job.deliveryId,
      orderId,
      version,
    });
    await this.faults.trip(OrderFaultPoint.AfterInvoiceCommit, { 'delivery-id': job.deliveryId });
    if (!outbox) {
      // DEMONSTRATION (outbox): published after the commit; killed at the point above, the delivery is lost.
      await this.relay.publishDirectly(job);
      await this.invoices.recordPublished(job);
    }
    return { deliveryId: job.deliveryId };
  }
}
