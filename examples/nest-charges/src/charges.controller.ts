import { Body, Controller, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Idempotent } from '@retry-safe/idempotency/nest';
import { PaymentProvider, type Charge } from './payment-provider.js';

interface CreateCharge {
  amount: number;
  currency: string;
}

@Controller('charges')
export class ChargesController {
  constructor(private readonly provider: PaymentProvider) {}

  @Post()
  // Requires an Idempotency-Key and charges once per key: a retry gets the stored 201, body and Location with
  // `Idempotent-Replayed: true`; the key with another body is a 422. `raise` answers a retry that arrives while
  // the first request still runs with a 409 and `Retry-After` at once, instead of holding it until the first ends.
  @Idempotent({ operation: 'payment.charge', inFlight: 'raise' })
  async create(@Body() body: CreateCharge, @Res({ passthrough: true }) res: Response): Promise<Charge> {
    const charge = await this.provider.charge(body.amount, body.currency);
    res.location(`/charges/${charge.id}`);
    return charge;
  }
}
