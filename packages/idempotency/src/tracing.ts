import { createHash } from 'node:crypto';
import { IdempotencyErrorCode, isIdempotencyError } from './errors.js';
import type { ActionContext, CoordinatedResult, CoordinateRequest } from './options.js';
import type { IdempotencySpan, IdempotencyTracer } from './tracer.js';

/** The attributes of the coordinator's span (`idempotency.coordinate`). */
export const IdempotencySpanAttribute = {
  /** The operation (the key's scope), e.g. `payment.charge.<tenant>`. */
  Operation: 'idempotency.operation',
  /** What the call came to: one of {@link IdempotencyTraceOutcome}. */
  Outcome: 'idempotency.outcome',
  /** The fencing token of the owner whose result this is (0 for an unprotected run); absent when none ran. */
  FencingToken: 'idempotency.fencing_token',
  /** {@link idempotencyKeyHash} of the key: the raw key never goes into a span. */
  KeyHash: 'idempotency.key_hash',
  /** True for `coordinateInTransaction` (the record in the caller's transaction). */
  Transactional: 'idempotency.transactional',
} as const;

/** What a coordinated call came to, as its span says. */
export const IdempotencyTraceOutcome = {
  /** This call owned the key, ran the action and stored its result. */
  Executed: 'executed',
  /** A stored result, possibly after waiting for its owner. */
  Replayed: 'replayed',
  /** The action ran without a reservation (fail-open, run-mode duplicate). */
  Unprotected: 'unprotected',
  /** Another owner held the key (raise mode, or the wait timed out). */
  InProgress: 'in_progress',
  /** The key came with another fingerprint. */
  KeyReuse: 'key_reuse',
  /** The lease was lost while the action ran. */
  LeaseLost: 'lease_lost',
  /** The store failed before the action (fail-closed). */
  StoreUnavailable: 'store_unavailable',
  CorruptRecord: 'corrupt_record',
  UnencodableResult: 'unencodable_result',
  InvalidKey: 'invalid_key',
  InvalidOptions: 'invalid_options',
  TransactionConflict: 'transaction_conflict',
  /** The action threw: the reservation was released, a retry runs it again. */
  ActionFailed: 'action_failed',
} as const;

/** One of {@link IdempotencyTraceOutcome}'s values. */
export type IdempotencyTraceOutcome = (typeof IdempotencyTraceOutcome)[keyof typeof IdempotencyTraceOutcome];

const OUTCOME_OF_CODE: Record<IdempotencyErrorCode, IdempotencyTraceOutcome> = {
  [IdempotencyErrorCode.InvalidKey]: IdempotencyTraceOutcome.InvalidKey,
  [IdempotencyErrorCode.KeyReuse]: IdempotencyTraceOutcome.KeyReuse,
  [IdempotencyErrorCode.InProgress]: IdempotencyTraceOutcome.InProgress,
  [IdempotencyErrorCode.StoreUnavailable]: IdempotencyTraceOutcome.StoreUnavailable,
  [IdempotencyErrorCode.LeaseLost]: IdempotencyTraceOutcome.LeaseLost,
  [IdempotencyErrorCode.CorruptRecord]: IdempotencyTraceOutcome.CorruptRecord,
  [IdempotencyErrorCode.InvalidOptions]: IdempotencyTraceOutcome.InvalidOptions,
  [IdempotencyErrorCode.UnencodableResult]: IdempotencyTraceOutcome.UnencodableResult,
  [IdempotencyErrorCode.TransactionConflict]: IdempotencyTraceOutcome.TransactionConflict,
};

/**
 * The first 16 hex digits of the key's SHA-256: the same key gives the same value in every span of every service,
 * so the attempts of one action can be found together, and the key itself (a client's identifier, sometimes
 * guessable) is not recorded. It correlates, it does not hide a key that is easy to guess: keys should be random.
 */
export function idempotencyKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Ends `span` with what an error thrown by the call says (the action's own errors: `action_failed`). */
function endWithError(span: IdempotencySpan, error: unknown): void {
  const outcome = isIdempotencyError(error)
    ? OUTCOME_OF_CODE[error.code]
    : IdempotencyTraceOutcome.ActionFailed;
  span.setAttribute(IdempotencySpanAttribute.Outcome, outcome);
  span.setStatus({
    // SpanStatusCode.ERROR: the API is an optional peer, its enums are not imported.
    code: 2,
    message: error instanceof Error ? error.message : String(error),
  });
  span.end();
}

/**
 * Runs one coordinated call (`run`, given `action` wrapped to record its fencing token) in an active span
 * `idempotency.coordinate`, so the store's calls and the action's own spans sit under it, and ends it with the
 * outcome, the fencing token and the key's hash.
 */
export function traceCoordinate<T, C extends ActionContext, R>(
  tracer: IdempotencyTracer,
  request: CoordinateRequest<T>,
  transactional: boolean,
  action: (context: C) => Promise<R>,
  run: (action: (context: C) => Promise<R>) => Promise<CoordinatedResult<T>>,
): Promise<CoordinatedResult<T>> {
  const attributes = {
    [IdempotencySpanAttribute.Operation]: request.operation,
    ...(transactional ? { [IdempotencySpanAttribute.Transactional]: true } : {}),
  };
  return tracer.startActiveSpan(
    'idempotency.coordinate',
    { kind: 0 /* SpanKind.INTERNAL */, attributes },
    async (span) => {
      // Hashed only for a span that is recorded (an unsampled call pays no SHA-256).
      if (span.isRecording()) {
        span.setAttribute(IdempotencySpanAttribute.KeyHash, idempotencyKeyHash(String(request.key)));
      }
      const traced = (context: C): Promise<R> => {
        span.setAttribute(IdempotencySpanAttribute.FencingToken, context.fencingToken);
        return action(context);
      };
      let result: CoordinatedResult<T>;
      try {
        result = await run(traced);
      } catch (error) {
        endWithError(span, error);
        throw error;
      }
      span.setAttribute(IdempotencySpanAttribute.Outcome, result.outcome);
      span.setAttribute(IdempotencySpanAttribute.FencingToken, result.fencingToken);
      span.end();
      return result;
    },
  );
}

/** Adds an event (`idempotency.<type>`: in_progress, store_error, lease_renewed...) to the call's span, if any. */
export function spanEvent(span: IdempotencySpan | undefined, type: string, durationMs: number): void {
  span?.addEvent(`idempotency.${type}`, { 'idempotency.duration_ms': durationMs });
}
