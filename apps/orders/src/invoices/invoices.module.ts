import { Module } from '@nestjs/common';
import { InvoicePublishMode } from '../config/orders-settings.js';
import { designInForce } from '../demonstrations/design-in-force.js';
import { PublishAfterCommit } from '../demonstrations/publish-after-commit.service.js';
import { OrdersModule } from '../orders/orders.module.js';
import { INVOICE_DELIVERY, type InvoiceDelivery } from './invoice-delivery.js';
import { InvoiceRateLimiter } from './invoice-rate-limiter.js';
import { InvoicesController } from './invoices.controller.js';
import { InvoicesRepository } from './invoices.repository.js';
import { InvoicesService } from './invoices.service.js';
import { OutboxDelivery } from './outbox-delivery.service.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { OutboxRetention } from './outbox-retention.service.js';

/**
 * `POST /v1/orders/{orderId}/invoices` -> the invoice outbox -> (the relay) the `invoices` BullMQ queue; while the
 * settings ask for the outbox scenario's demonstration, published after the commit instead.
 */
@Module({
  imports: [OrdersModule],
  controllers: [InvoicesController],
  providers: [
    InvoiceRateLimiter,
    InvoicesService,
    InvoicesRepository,
    OutboxRelay,
    OutboxRetention,
    OutboxDelivery,
    PublishAfterCommit,
    designInForce<InvoiceDelivery>({
      provide: INVOICE_DELIVERY,
      design: OutboxDelivery,
      demonstration: PublishAfterCommit,
      when: (settings) => settings.invoicePublish === InvoicePublishMode.PublishAfterCommit,
      methods: ['deliver'],
    }),
  ],
  exports: [InvoicesRepository],
})
export class InvoicesModule {}
