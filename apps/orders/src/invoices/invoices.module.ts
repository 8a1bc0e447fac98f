import { Module } from '@nestjs/common';
import { InvoicesController } from './invoices.controller.js';
import { InvoicesService } from './invoices.service.js';

/** `POST /v1/orders/{orderId}/invoices` -> the `invoices` BullMQ queue. */
@Module({ controllers: [InvoicesController], providers: [InvoicesService] })
export class InvoicesModule {}
