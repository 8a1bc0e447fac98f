import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Idempotent, type IdempotentMessage } from '@retry-safe/idempotency/nest';
import { acknowledge } from './acknowledge.js';
import { Mailer } from './mailer.js';
import type { OrderPaid } from './messages.js';
import { Patterns } from './patterns.js';

@Controller()
export class ReceiptsController {
  constructor(private readonly mailer: Mailer) {}

  @EventPattern(Patterns.orderPaid)
  // One receipt per event: a second copy (the publisher sent it twice, or RabbitMQ delivered it again after a lost
  // ack) sends nothing and is acknowledged. A copy that arrives while the first still runs waits for it (the
  // default `inFlight: 'wait'`) and is then settled the same way: an event has no caller to tell "retry later".
  @Idempotent<IdempotentMessage<OrderPaid>>({
    operation: 'receipt.send',
    keyFrom: { payload: 'meta.eventId' },
  })
  async orderPaid(@Payload() event: OrderPaid, @Ctx() ctx: unknown): Promise<void> {
    await this.mailer.sendReceipt(event.order, event.email);
    acknowledge(ctx);
  }
}
