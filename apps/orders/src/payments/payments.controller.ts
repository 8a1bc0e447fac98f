import { Body, Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  Chain,
  type ChainContext,
  type HttpReply,
  IdempotencyKey,
  JsonContentTypeGuard,
  nodeResponseOf,
  relay,
} from '@retry-safe/app-shell/http';
import { OrderIdSchema, OrderPaymentSchema, type OrderPayment } from '@retry-safe/contracts';
import { signalWhenCallerLeaves } from '@retry-safe/http-client';
import { TenantId } from '../common/tenant-id.decorator.js';
import { OrderPaymentsService } from './order-payments.service.js';

/**
 * Internal: pays an order. Reads the key with the chain's one parser (the rules payments applies), checks the
 * order and the payment, charges through payments, applies the Charge to the order once, and relays payments'
 * answer (the 201 Charge byte for byte, or the problem with its status, `code` and `Retry-After`) with its own
 * `Idempotent-Replayed` (`relay`: only a Charge stored before this request arrived is marked).
 */
@Controller('v1/orders')
@UseGuards(JsonContentTypeGuard)
export class PaymentsController {
  constructor(private readonly payments: OrderPaymentsService) {}

  @Post(':orderId/payments')
  async create(
    @TenantId() tenantId: string,
    @IdempotencyKey() idempotencyKey: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: OrderPaymentSchema }) payment: OrderPayment,
    @Chain() chain: ChainContext,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    const upstream = await this.payments.pay(
      tenantId,
      orderId,
      payment,
      idempotencyKey,
      chain,
      // The gateway gave up on this attempt (timeout, its client left): stop calling payments for it.
      signalWhenCallerLeaves(nodeResponseOf(res)),
    );
    return relay(res, upstream);
  }
}
