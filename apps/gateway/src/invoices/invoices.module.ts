import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module.js';
import { InvoicesController } from './invoices.controller.js';

/** `POST /v1/orders/{orderId}/invoices`. */
@Module({ imports: [OrdersModule], controllers: [InvoicesController] })
export class InvoicesModule {}
