import { Body, Controller, Post } from '@nestjs/common';
import { Idempotent, type IdempotentRequest } from '@retry-safe/idempotency/nest';

interface CreateCharge {
  amount: number;
  currency: string;
}

/** The request as this app's auth guard leaves it (Express's `Request` or Fastify's `FastifyRequest` work too). */
type SignedInRequest = IdempotentRequest & { user: { tenantId: string } };

@Controller('charges')
export class ChargesController {
  private charged = 0;

  @Post()
  // One charge per tenant and Idempotency-Key: a retry gets the stored 201 and body with
  // `Idempotent-Replayed: true`, the key with another body is a 422, a retry while the first runs a 409.
  @Idempotent<SignedInRequest>({ operation: 'payment.charge', scope: (req) => req.user.tenantId })
  create(@Body() body: CreateCharge): { id: string; amount: number; currency: string } {
    this.charged += 1;
    return { id: `ch_${this.charged}`, amount: body.amount, currency: body.currency };
  }
}
