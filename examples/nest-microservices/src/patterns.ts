/**
 * The patterns this service answers: NATS subjects, or the `pattern` of a RabbitMQ message on its queue.
 *
 * A NATS subject reaches every subscriber on the server, so two deployments (or two test runs) on one server would
 * answer each other's messages: `PATTERN_NAMESPACE` (e.g. `staging`) keeps them apart. It is read here, at import,
 * because Nest takes a handler's pattern from its decorator when the class is declared, before any config is loaded.
 */
const namespace = process.env['PATTERN_NAMESPACE'] ?? 'payments';

export const Patterns = {
  /** Request-response: charge a card; the key in the `Idempotency-Key` transport header. */
  createCharge: `${namespace}.charges.create`,
  /** Request-response: refund a charge; the key in the payload (`meta.requestId`). */
  refundCharge: `${namespace}.charges.refund`,
  /** Event: an order was paid; its receipt is sent once per `meta.eventId`. */
  orderPaid: `${namespace}.orders.paid`,
} as const;
