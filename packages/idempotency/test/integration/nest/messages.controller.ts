import { randomUUID } from 'node:crypto';
import {
  Controller,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload, RmqContext } from '@nestjs/microservices';
import { finalize, tap, type Observable } from 'rxjs';
import { Idempotent, type IdempotentMessage } from '../../../src/nest/index.js';

/**
 * The handlers' patterns, unique to this suite's run: NATS subjects are shared by every process on the server, so
 * two suites side by side never receive each other's messages.
 */
const RUN = randomUUID().slice(0, 8);
export const PATTERNS = {
  charge: `rpc.${RUN}.charge`,
  chargeByPayload: `rpc.${RUN}.charge-by-payload`,
  chargeByFunction: `rpc.${RUN}.charge-by-function`,
  chargeCreated: `rpc.${RUN}.charge-created`,
  ledger: `rpc.${RUN}.ledger`,
} as const;

export interface ChargeMessage {
  readonly amount: number;
  readonly meta?: { readonly eventId?: string };
  readonly ref?: string;
}

/** What the handlers did: the effects each test counts. One per app. */
@Injectable()
export class MessageEffects {
  charges = 0;
  events = 0;
  ledger = 0;
  /** Holds every handler after its effect, until resolved. */
  hold: Promise<void> | undefined;
  /** RabbitMQ with `noAck: false`: each handler acknowledges its message once its work is done. */
  manualAck = false;
  /** The channel of the last RabbitMQ delivery a handler got, to see it close. */
  channel: { once(event: 'close', listener: () => void): unknown } | undefined;
}

/** One delivery that reached a handler's interceptors: its pattern, whether the broker redelivered it, its end. */
export interface Delivery {
  readonly pattern: string;
  readonly redelivered: boolean | undefined;
  outcome?: 'answered' | 'failed';
  error?: unknown;
}

/**
 * Records every delivery (an app-wide interceptor: it runs around `@Idempotent()`'s), so a test sees a duplicate
 * arrive and end even when the handler never ran for it.
 */
@Injectable()
export class DeliveryLog implements NestInterceptor {
  readonly deliveries: Delivery[] = [];

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx: unknown = context.switchToRpc().getContext();
    const message = ctx instanceof RmqContext ? ctx.getMessage() : undefined;
    const fields = message?.['fields'] as { redelivered?: boolean } | undefined;
    // RmqContext names the pattern, NatsContext the subject (the pattern on NATS).
    const named = ctx as { getPattern?(): string; getSubject?(): string };
    const delivery: Delivery = {
      pattern: named.getPattern?.() ?? named.getSubject?.() ?? '',
      redelivered: fields?.redelivered,
    };
    this.deliveries.push(delivery);
    return next.handle().pipe(
      tap({ error: (error: unknown) => Object.assign(delivery, { outcome: 'failed', error }) }),
      finalize(() => (delivery.outcome ??= 'answered')),
    );
  }

  of(pattern: string): Delivery[] {
    return this.deliveries.filter((delivery) => delivery.pattern === pattern);
  }
}

function acknowledge(effects: MessageEffects, ctx: unknown): void {
  if (effects.manualAck && ctx instanceof RmqContext) {
    (ctx.getChannelRef() as { ack(message: object): void }).ack(ctx.getMessage());
  }
}

@Controller()
export class ChargeMessagesController {
  constructor(private readonly effects: MessageEffects) {}

  /** Keyed by the transport's `Idempotency-Key` header (the default). */
  @MessagePattern(PATTERNS.charge)
  @Idempotent({ operation: 'rpc.charge', inFlight: 'raise' })
  async charge(@Payload() data: ChargeMessage, @Ctx() ctx: unknown) {
    this.effects.charges += 1;
    const id = `ch_${this.effects.charges}`;
    await this.effects.hold;
    acknowledge(this.effects, ctx);
    return { id, amount: data.amount, at: { effect: this.effects.charges } };
  }

  /** Keyed by a payload path; a duplicate in flight waits for the first (the coordinator's default). */
  @MessagePattern(PATTERNS.chargeByPayload)
  @Idempotent({ operation: 'rpc.charge-by-payload', keyFrom: { payload: 'meta.eventId' } })
  async chargeByPayload(@Payload() data: ChargeMessage, @Ctx() ctx: unknown) {
    this.effects.charges += 1;
    const id = `ch_${this.effects.charges}`;
    await this.effects.hold;
    acknowledge(this.effects, ctx);
    return { id, amount: data.amount };
  }

  @MessagePattern(PATTERNS.chargeByFunction)
  @Idempotent<IdempotentMessage<ChargeMessage>>({
    operation: 'rpc.charge-by-function',
    keyFrom: (message) => (message.data.ref === undefined ? undefined : `ref-${message.data.ref}`),
  })
  chargeByFunction(@Payload() data: ChargeMessage, @Ctx() ctx: unknown) {
    this.effects.charges += 1;
    acknowledge(this.effects, ctx);
    return { id: `ch_${this.effects.charges}`, amount: data.amount };
  }

  @EventPattern(PATTERNS.chargeCreated)
  @Idempotent({ operation: 'rpc.charge-created', keyFrom: { payload: 'meta.eventId' }, inFlight: 'raise' })
  async chargeCreated(@Payload() _data: ChargeMessage, @Ctx() ctx: unknown) {
    this.effects.events += 1;
    if (ctx instanceof RmqContext) this.effects.channel = ctx.getChannelRef() as MessageEffects['channel'];
    await this.effects.hold;
    acknowledge(this.effects, ctx);
  }
}

/** `@Idempotent()` on the class: its message and event handlers are idempotent with the class's options. */
@Controller()
@Idempotent({ operation: 'rpc.ledger', keyFrom: { payload: 'meta.eventId' } })
export class LedgerMessagesController {
  constructor(private readonly effects: MessageEffects) {}

  @MessagePattern(PATTERNS.ledger)
  record(@Payload() data: ChargeMessage, @Ctx() ctx: unknown) {
    this.effects.ledger += 1;
    acknowledge(this.effects, ctx);
    return { entry: this.effects.ledger, amount: data.amount };
  }
}
