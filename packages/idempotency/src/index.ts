export { IdempotencyCoordinator, type IdempotentAction } from './coordinator.js';
export * from './options.js';
export { IDEMPOTENCY_DEFAULTS, IDEMPOTENCY_LIMITS, IdempotencyLimits } from './limits.js';
export * from './errors.js';
export {
  isTransactionalStore,
  type SqlQueryResult,
  type SqlTransaction,
  type TransactionalActionContext,
  type TransactionalIdempotencyStore,
  type TransactionalAction,
  type TransactionBoundStore,
  type InsertCompletedRequest,
  type TransactionRunner,
} from './transactional.js';
export {
  RECORD_CTE,
  isOneStatementStore,
  type CompletedRecordValues,
  type OneStatementStore,
  type RecordedStatement,
  type StatementAction,
  type StatementWrite,
} from './one-statement.js';
export { jsonCodec, schemaCodec, voidCodec, type Codec, type ParsingSchema } from './codecs.js';
export { canonicalJson, fingerprintOf, type FingerprintValue } from './fingerprint.js';
export { parseDuration, type Duration } from './duration.js';
export { encryptedCodec, type EncryptionKey, type EncryptionOptions } from './encryption.js';
export {
  IdempotencyChannel,
  LeaseLostReason,
  StorePhase,
  type IdempotencyChannelMessage,
  type IdempotencyChannelMessageBase,
  type IdempotencyChannelMessages,
} from './channels.js';
export { idempotencyKeyProblem } from './validation.js';
export * from './store.js';
export * from './key-header.js';
export { IdempotencySpanAttribute, IdempotencyTraceOutcome, idempotencyKeyHash } from './tracing.js';
export type { IdempotencySpan, IdempotencySpanAttributes, IdempotencyTracer } from './tracer.js';
export {
  makeIdempotent,
  makeIdempotentInOneStatement,
  makeIdempotentInTransaction,
  makeIdempotentOptimistically,
  makeIdempotentWithOutcome,
  type IdempotencyContext,
  type IdempotentCallSettings,
  type IdempotentFunctionOptions,
  type OneStatementIdempotentFunctionOptions,
  type OptimisticIdempotentFunctionOptions,
  type TransactionalIdempotentFunctionOptions,
} from './idempotent-function.js';
