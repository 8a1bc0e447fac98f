import { Body, Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  IdempotencyKey,
  JsonContentTypeGuard,
  nodeResponseOf,
  relay,
  type HttpReply,
} from '@retry-safe/app-shell/http';
import { signalWhenCallerLeaves } from '@retry-safe/http-client';
import { AuthenticatedCaller, type Caller } from '../auth/caller.decorator.js';

import { OrdersClient } from '../orders/orders.client.js';
import { OrderIdSchema, OrderPaymentSchema, type OrderPayment } from '@retry-safe/contracts';

/**
 * The public payment API. Checks, in order: bearer token (401, in the shell, before the body is read), media type (415), `Idempotency-Key` (400), path and
 * body (400); then forwards to orders with the key and relays its answer unchanged: 201 with the Charge (plus
 * `Idempotent-Replayed: true` on a replay), or the problem with its status, `code` and `Retry-After`.
 */
@Controller('v1/orders')
@UseGuards(JsonContentTypeGuard)
export class PaymentsController {
  constructor(private readonly orders: OrdersClient) {}

  @Post(':orderId/payments')
  async create(
    @AuthenticatedCaller() caller: Caller,
    @IdempotencyKey() idempotencyKey: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: OrderPaymentSchema }) payment: OrderPayment,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    const upstream = await this.orders.createPayment(
      { orderId, ...payment },
      idempotencyKey,
      caller,
      // A client that gives up stops the chain's work for it (the key makes its retry safe).
      signalWhenCallerLeaves(nodeResponseOf(res)),
    );
    return relay(res, upstream);
  }
}
