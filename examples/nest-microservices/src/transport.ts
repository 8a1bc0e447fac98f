import { Transport, type ClientOptions, type MicroserviceOptions } from '@nestjs/microservices';
import { TransportName, type ServiceConfig } from './config.js';

/**
 * The queue as this service and its callers declare it: both assert it at start-up, and RabbitMQ refuses a second
 * declaration with other options. Durable, so messages waiting for the service outlive a broker restart; never
 * auto-deleted, so a consumer that lost its connection finds its queue, and its unacknowledged messages, again.
 */
const QUEUE_OPTIONS = { durable: true } as const;

/** Where the service listens: NATS subjects, or its own queue on RabbitMQ. */
export function serverOptions(config: ServiceConfig): MicroserviceOptions {
  if (config.transport === TransportName.Nats) {
    return { transport: Transport.NATS, options: { servers: [config.natsUrl] } };
  }
  return {
    transport: Transport.RMQ,
    options: {
      urls: [config.amqpUrl],
      queue: config.queue,
      queueOptions: QUEUE_OPTIONS,
      // Every handler acknowledges its message once its work is done (acknowledge.ts): a message whose handler
      // never got that far (the process died, the connection dropped) is delivered again, and @Idempotent()
      // replays what already ran instead of running it twice.
      noAck: false,
    },
  };
}

/** How a caller reaches the service (a `ClientsModule` entry in the caller's app, or `ClientProxyFactory`). */
export function clientOptions(config: ServiceConfig): ClientOptions {
  if (config.transport === TransportName.Nats) {
    return { transport: Transport.NATS, options: { servers: [config.natsUrl] } };
  }
  return {
    transport: Transport.RMQ,
    options: { urls: [config.amqpUrl], queue: config.queue, queueOptions: QUEUE_OPTIONS },
  };
}
