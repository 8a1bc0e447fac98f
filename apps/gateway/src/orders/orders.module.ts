import { Module } from '@nestjs/common';
import { OrdersClient } from './orders.client.js';

/** The client of the orders service, shared by the payment and invoice routes. */
@Module({ providers: [OrdersClient], exports: [OrdersClient] })
export class OrdersModule {}
