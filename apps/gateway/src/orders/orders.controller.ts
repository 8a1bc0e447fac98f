import { Body, Controller, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { IdempotencyKey, JsonContentTypeGuard, relay, type HttpReply } from '@retry-safe/app-shell/http';
import {
  OrderCreateSchema,
  OrderIdSchema,
  OrderListQuerySchema,
  type OrderCreate,
  type OrderListQuery,
} from '@retry-safe/contracts';
import { AuthenticatedCaller, type Caller } from '../auth/caller.decorator.js';

import { OrdersClient } from './orders.client.js';

/**
 * The public orders API. `POST /v1/orders` checks the token (401, in the shell), media type (415), `Idempotency-Key` (400) and
 * body (400), then forwards to orders with the key; reads are tenant-scoped. Answers are relayed as they came:
 * 201 with the order (`Idempotent-Replayed: true` on a replay), 200, or the problem with its status and `code`.
 */
@Controller('v1/orders')
export class OrdersController {
  constructor(private readonly orders: OrdersClient) {}

  @Post()
  @UseGuards(JsonContentTypeGuard)
  async create(
    @AuthenticatedCaller() caller: Caller,
    @IdempotencyKey() idempotencyKey: string,
    @Body({ schema: OrderCreateSchema }) order: OrderCreate,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    return relay(res, await this.orders.createOrder(order, idempotencyKey, caller));
  }

  @Get(':orderId')
  async get(
    @AuthenticatedCaller() caller: Caller,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    return relay(res, await this.orders.getOrder(orderId, caller));
  }

  @Get()
  async list(
    @AuthenticatedCaller() caller: Caller,
    @Query({ schema: OrderListQuerySchema }) query: OrderListQuery,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    return relay(res, await this.orders.listOrders(query, caller));
  }
}
