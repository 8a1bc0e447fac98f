import { Body, Controller, HttpCode, HttpStatus, Param, Post, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Idempotent } from '@retry-safe/idempotency/nest';
import { PaymentProvider, type Charge, type Statement } from './payment-provider.js';

interface CreateCharge {
  amount: number;
  currency: string;
  metadata?: unknown;
}

@Controller('charges')
export class ChargesController {
  constructor(
    private readonly provider: PaymentProvider,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post()
  // Requires an Idempotency-Key and charges once per key: a retry gets the stored 201, body and Location with
  // `Idempotent-Replayed: true`; the key with another body is a 422. `raise` answers a retry that arrives while
  // the first request still runs with a 409 and `Retry-After` at once, instead of holding it until the first ends.
  @Idempotent({ operation: 'payment.charge', inFlight: 'raise' })
  async create(@Body() body: CreateCharge, @Res({ passthrough: true }) res: object): Promise<Charge> {
    const charge = await this.provider.charge(body.amount, body.currency);
    // Through Nest's HTTP adapter, so the route is the same on Express and on Fastify.
    this.adapterHost.httpAdapter.setHeader(res, 'Location', `/charges/${charge.id}`);
    return charge;
  }

  @Post(':id/capture')
  @HttpCode(HttpStatus.NO_CONTENT)
  // The operation defaults to 'ChargesController.capture'; a retry gets the stored 204, with no body.
  @Idempotent()
  async capture(@Param('id') id: string): Promise<void> {
    await this.provider.capture(id);
  }

  @Post('statements')
  // About 1 MiB of JSON, stored and replayed byte for byte.
  @Idempotent({ operation: 'payment.statement' })
  async statement(): Promise<Statement> {
    return this.provider.statement();
  }
}
