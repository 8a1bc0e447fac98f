import { Body, Controller, Post, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Idempotent } from '@retry-safe/idempotency/nest';
import { PaymentProvider, type Refund } from './payment-provider.js';

interface RefundRequest {
  charge: string;
  amount: number;
}

/**
 * Every POST of this controller is idempotent. Options stack: the module's (`ttl: '24h'`), then the class's, then
 * a method's own.
 */
@Controller('refunds')
@Idempotent({ inFlight: 'raise', replayHeaders: ['Location', 'Provider-Request-Id'] })
export class RefundsController {
  constructor(
    private readonly provider: PaymentProvider,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post()
  async create(@Body() body: RefundRequest, @Res({ passthrough: true }) res: object): Promise<Refund> {
    const refund = await this.provider.refund(body.charge, body.amount);
    this.adapterHost.httpAdapter.setHeader(res, 'Location', `/refunds/${refund.id}`);
    this.adapterHost.httpAdapter.setHeader(res, 'Provider-Request-Id', refund.providerRequestId);
    return refund;
  }

  @Post('quotes')
  // A quote goes stale: replayed for a second only, and without the provider call's id (a replay made no call).
  @Idempotent({ ttl: '1s', replayHeaders: [] })
  async quote(@Body() body: Pick<RefundRequest, 'charge'>, @Res({ passthrough: true }) res: object) {
    const quote = await this.provider.quote(body.charge);
    this.adapterHost.httpAdapter.setHeader(res, 'Provider-Request-Id', quote.providerRequestId);
    return quote;
  }
}
