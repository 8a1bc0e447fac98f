import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Idempotent, type IdempotentMessage } from '@retry-safe/idempotency/nest';

interface ChargeRequested {
  readonly amount: number;
  readonly meta: { readonly eventId: string };
}

@Controller()
export class ChargesMessagesController {
  private charged = 0;

  // Request-response: a duplicate gets the stored reply; the key from the transport's `Idempotency-Key` header
  // (NATS headers, RabbitMQ message headers, Kafka headers, MQTT 5 user properties, gRPC metadata).
  @MessagePattern('charges.create')
  @Idempotent({ operation: 'charges.create' })
  create(@Payload() request: { amount: number }): { id: string; amount: number } {
    this.charged += 1;
    return { id: `ch_${this.charged}`, amount: request.amount };
  }

  // An event delivered twice (a publisher that sent it again, a broker's redelivery) runs once; the key from the
  // payload. `wait` (the default) holds a duplicate that arrives while the first runs until it ends.
  @EventPattern('charges.requested')
  @Idempotent<IdempotentMessage<ChargeRequested>>({
    operation: 'charges.requested',
    keyFrom: { payload: 'meta.eventId' },
    scope: false,
  })
  requested(@Payload() event: ChargeRequested): void {
    this.charged += event.amount > 0 ? 1 : 0;
  }
}
