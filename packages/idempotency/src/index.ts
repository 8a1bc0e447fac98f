export { IdempotencyCoordinator, type IdempotentAction } from './coordinator.js';
export {
  CoordinateOutcome,
  IdempotencyEventType,
  InFlightMode,
  StoreUnavailablePolicy,
  type ActionContext,
  type CoordinatedResult,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyEvent,
} from './options.js';
export { IDEMPOTENCY_DEFAULTS, IDEMPOTENCY_LIMITS, IdempotencyLimits } from './limits.js';
export {
  IdempotencyCorruptRecordError,
  IdempotencyError,
  IdempotencyErrorCode,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  IdempotencyLeaseLostError,
  IdempotencyStoreUnavailableError,
  IdempotencyUnencodableResultError,
  IdempotencyTransactionConflictError,
  InvalidIdempotencyKeyError,
  InvalidIdempotencyOptionsError,
  isIdempotencyError,
  type IdempotencyErrorContext,
} from './errors.js';
export {
  isTransactionalStore,
  type SqlQueryResult,
  type SqlTransaction,
  type TransactionalActionContext,
  type TransactionalIdempotencyStore,
  type TransactionalAction,
} from './transactional.js';
export { jsonCodec, schemaCodec, voidCodec, type Codec, type ParsingSchema } from './codecs.js';
export { canonicalJson, fingerprintOf, type FingerprintValue } from './fingerprint.js';
export { idempotencyKeyProblem } from './validation.js';
export {
  ClaimStatus,
  RecordState,
  type ClaimRequest,
  type ClaimResult,
  type CompleteRequest,
  type IdempotencyStore,
  type RecordId,
  type ReleaseRequest,
  type RenewRequest,
  type StoreIfAbsentRequest,
} from './store.js';
export * from './key-header.js';
