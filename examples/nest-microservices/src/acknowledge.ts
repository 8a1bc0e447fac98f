import { Logger } from '@nestjs/common';
import { RmqContext } from '@nestjs/microservices';

const logger = new Logger('Acknowledge');

/**
 * Acknowledges a RabbitMQ message once its handler's work is done (the consumer runs with `noAck: false`); a NATS
 * message has nothing to acknowledge. @Idempotent() notes in its record that the handler acknowledged, and so
 * acknowledges each duplicate it replays instead (a publisher's second copy, RabbitMQ's redelivery).
 */
export function acknowledge(ctx: unknown): void {
  if (!(ctx instanceof RmqContext)) return;
  const channel = ctx.getChannelRef() as { ack(message: object): void };
  try {
    channel.ack(ctx.getMessage());
  } catch (error) {
    // The channel closed while the handler ran (the connection dropped): this ack is lost, and RabbitMQ delivers
    // the message again. The work is done, so the handler must not fail now: a handler that throws gives its key
    // back, and the redelivery would do the work a second time instead of being replayed and acknowledged.
    logger.warn(`ack lost, the message will be redelivered: ${(error as Error).message}`);
  }
}
