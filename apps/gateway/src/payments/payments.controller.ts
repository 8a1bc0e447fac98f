import { Body, Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { JsonContentTypeGuard, relay } from '@retry-safe/app-shell';
import { ApiTokenGuard } from '../auth/api-token.guard.js';
import { AuthenticatedCaller, type Caller } from '../auth/caller.decorator.js';
import { OrderIdSchema } from '../common/order-id.js';
import { IdempotencyKey } from '../idempotency-key/idempotency-key.decorator.js';
import { OrdersClient } from '../orders/orders.client.js';
import { CreatePaymentSchema, type CreatePayment } from './create-payment.schema.js';

/**
 * The public payment API. Checks, in order: bearer token (401), media type (415), `Idempotency-Key` (400), path and
 * body (400); then forwards to orders with the key and relays its answer unchanged: 201 with the Charge (plus
 * `Idempotent-Replayed: true` on a replay), or the problem with its status, `code` and `Retry-After`.
 */
@Controller('v1/orders')
@UseGuards(ApiTokenGuard, JsonContentTypeGuard)
export class PaymentsController {
  constructor(private readonly orders: OrdersClient) {}

  @Post(':orderId/payments')
  async create(
    @AuthenticatedCaller() caller: Caller,
    @IdempotencyKey() idempotencyKey: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: CreatePaymentSchema }) payment: CreatePayment,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const upstream = await this.orders.createPayment({ orderId, ...payment }, idempotencyKey, caller);
    return relay(res, upstream);
  }
}
