import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { Idempotent, type IdempotentMessage } from '@retry-safe/idempotency/nest';
import { acknowledge } from './acknowledge.js';
import type { CreateCharge, PaymentReply, RefundCharge } from './messages.js';
import { PaymentProvider } from './payment-provider.js';
import { Patterns } from './patterns.js';

/**
 * Request-response handlers: the caller waits for the reply. A repeat with the same key gets the stored reply and
 * charges nothing; the key with another payload is refused with `idempotency_key_reused` (status 422), and a
 * repeat while the first still runs with `request_in_progress` (409) and `retryAfter` (seconds), at once
 * (`inFlight: 'raise'`), so the caller's own timeout does not run out while it waits.
 */
@Controller()
export class ChargesController {
  constructor(private readonly provider: PaymentProvider) {}

  @MessagePattern(Patterns.createCharge)
  // The key travels beside the payload, as HTTP's does: NATS message headers, RabbitMQ message headers.
  @Idempotent({ operation: 'payment.charge', keyFrom: { header: 'Idempotency-Key' }, inFlight: 'raise' })
  async create(@Payload() body: CreateCharge, @Ctx() ctx: unknown): Promise<PaymentReply> {
    const reply = await this.provider.charge(body.amount, body.currency);
    acknowledge(ctx);
    return reply;
  }

  @MessagePattern(Patterns.refundCharge)
  // The key inside the payload, for callers whose client sends no headers. The whole payload is the fingerprint:
  // the same requestId for another amount is a new request under a used key (422).
  @Idempotent<IdempotentMessage<RefundCharge>>({
    operation: 'payment.refund',
    keyFrom: { payload: 'meta.requestId' },
    inFlight: 'raise',
  })
  async refund(@Payload() body: RefundCharge, @Ctx() ctx: unknown): Promise<PaymentReply> {
    const reply = await this.provider.refund(body.charge, body.amount);
    acknowledge(ctx);
    return reply;
  }
}
