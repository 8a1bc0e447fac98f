import { Body, Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { Chain, type ChainContext, JsonContentTypeGuard, relay } from '@retry-safe/app-shell';
import { ForwardedIdempotencyKey } from '../common/forwarded-idempotency-key.decorator.js';
import { OrderIdSchema } from '../common/order-id.js';
import { TenantId } from '../common/tenant-id.decorator.js';
import { CreatePaymentSchema, type CreatePayment } from './create-payment.schema.js';
import { PaymentsClient } from './payments.client.js';

/**
 * Internal: pays an order. Turns the order's payment into the payments command and relays the answer unchanged
 * (201 Charge with `Idempotent-Replayed`, or the problem with its status, `code` and `Retry-After`).
 */
@Controller('v1/orders')
@UseGuards(JsonContentTypeGuard)
export class PaymentsController {
  constructor(private readonly payments: PaymentsClient) {}

  @Post(':orderId/payments')
  async create(
    @TenantId() tenantId: string,
    @ForwardedIdempotencyKey() idempotencyKey: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: CreatePaymentSchema }) payment: CreatePayment,
    @Chain() chain: ChainContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const upstream = await this.payments.charge({ tenantId, orderId, ...payment }, idempotencyKey, chain);
    return relay(res, upstream);
  }
}
