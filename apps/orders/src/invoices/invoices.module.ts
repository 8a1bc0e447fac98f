import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module.js';
import { InvoiceRateLimiter } from './invoice-rate-limiter.js';
import { InvoicesController } from './invoices.controller.js';
import { InvoicesRepository } from './invoices.repository.js';
import { InvoicesService } from './invoices.service.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { OutboxRetention } from './outbox-retention.service.js';

/** `POST /v1/orders/{orderId}/invoices` -> the invoice outbox -> (the relay) the `invoices` BullMQ queue. */
@Module({
  imports: [OrdersModule],
  controllers: [InvoicesController],
  providers: [InvoiceRateLimiter, InvoicesService, InvoicesRepository, OutboxRelay, OutboxRetention],
  exports: [InvoicesRepository],
})
export class InvoicesModule {}
