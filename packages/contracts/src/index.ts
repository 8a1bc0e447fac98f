// `@retry-safe/contracts`: what the services agree on, imported by both sides of each contract (apps never import
// each other). The wire conventions (header names, problem+json) are the `./http` subpath.
export { ChargeSchema, type Charge } from './charge.js';
export { ISO_4217_CURRENCIES, isIso4217Currency } from './currencies.js';
export { journalClock, preciseNow, type ClockSources } from './journal-clock.js';
export { IDEMPOTENCY_KEY_DIGEST_LENGTH, idempotencyKeyDigest } from './idempotency-key-digest.js';
export {
  INVOICES_QUEUE,
  INVOICE_JOB_NAME,
  InvoiceEmailSchema,
  InvoiceJobSchema,
  InvoiceRequestSchema,
  InvoiceVersionSchema,
  MAX_EMAIL_LENGTH,
  MAX_INVOICE_VERSION,
  type InvoiceJob,
  type InvoiceRequest,
} from './invoice-job.js';
export {
  AmountMinorSchema,
  CurrencySchema,
  MAX_AMOUNT_MINOR,
  OrderIdSchema,
  OrderPaymentSchema,
  PaymentCommandSchema,
  type OrderPayment,
  type PaymentCommand,
} from './payment-command.js';
export {
  ORDER_LIST_LIMITS,
  OrderCreateSchema,
  OrderListQuerySchema,
  OrderStatus,
  type OrderCreate,
  type OrderListQuery,
} from './order.js';
export { ProblemCode } from './problem-codes.js';
export { DEMO_API_TOKEN_VALUES, DEMO_PASSWORDS, DEMO_SECRETS } from './demo-secrets.js';
