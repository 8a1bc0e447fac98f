import { Module } from '@nestjs/common';
import { OrdersClient } from './orders.client.js';
import { OrdersController } from './orders.controller.js';

/** The orders routes, and the client of the orders service shared by the payment and invoice routes. */
@Module({ controllers: [OrdersController], providers: [OrdersClient], exports: [OrdersClient] })
export class OrdersModule {}
