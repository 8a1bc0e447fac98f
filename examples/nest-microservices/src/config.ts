/** The broker the service listens on: the same handlers, and the same idempotency, on either. */
export const TransportName = { Nats: 'nats', RabbitMq: 'rabbitmq' } as const;
export type TransportName = (typeof TransportName)[keyof typeof TransportName];

export interface ServiceConfig {
  readonly transport: TransportName;
  /** NATS: the servers to connect to. */
  readonly natsUrl: string;
  /** RabbitMQ: the broker, and the queue this service consumes. */
  readonly amqpUrl: string;
  readonly queue: string;
  readonly redisUrl: string;
  /** Prefix of every idempotency record, to share a Redis with other data. */
  readonly keyPrefix: string;
}

/**
 * The service's settings, read once at start-up: `TRANSPORT` (`nats` or `rabbitmq`), `NATS_URL`, `AMQP_URL`,
 * `RMQ_QUEUE`, `REDIS_URL` and `IDEMPOTENCY_KEY_PREFIX`. A wrong transport stops the start with the variable's
 * name, not with a connection error later.
 */
export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const transport = env['TRANSPORT'] ?? TransportName.Nats;
  const known: readonly string[] = Object.values(TransportName);
  if (!known.includes(transport)) {
    throw new Error(`TRANSPORT must be one of ${known.join(', ')}, got "${transport}"`);
  }
  return {
    transport: transport as TransportName,
    natsUrl: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    amqpUrl: env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
    queue: env['RMQ_QUEUE'] ?? 'payments',
    redisUrl: env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    keyPrefix: env['IDEMPOTENCY_KEY_PREFIX'] ?? 'payments:idem:',
  };
}
