import type { Call } from './call.js';
import { publishStored, publishStoreUnavailable, StorePhase } from './channels.js';
import { IdempotencyErrorCode, IdempotencyStoreUnavailableError, isIdempotencyError } from './errors.js';
import type { IdempotentAction } from './owner-run.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  StoreUnavailablePolicy,
  type CoordinatedResult,
  type IdempotencyEvent,
} from './options.js';
import type { IdempotencyStore } from './store.js';

/** Reports an event of the call being run. */
type EventSink = (type: IdempotencyEvent['type']) => void;

/**
 * Runs `action` without a reservation (a `run`-mode duplicate, or fail-open while the store is down): no lease,
 * no fencing token (0). Its result is stored only if no record exists, so it never overwrites an owner's.
 */
export async function runUnprotected<T>(
  store: IdempotencyStore,
  call: Call<T>,
  action: IdempotentAction<T>,
  emit: EventSink,
): Promise<CoordinatedResult<T>> {
  const value = await action({
    get signal() {
      return new AbortController().signal;
    },
    fencingToken: 0,
    protected: false,
  });
  let encoded = false;
  try {
    const payload = call.request.codec.encode(value);
    encoded = true;
    const stored = await store.storeIfAbsent({
      operation: call.operation,
      key: call.key,
      fingerprint: call.fingerprint,
      payload,
      ttlMs: call.request.ttlMs,
    });
    if (stored) publishStored(call, false, 0, CoordinateOutcome.Unprotected, false);
  } catch {
    // Unencodable or not stored: the unprotected value is returned all the same (it is not the record's).
    emit(IdempotencyEventType.StoreError);
    if (encoded) publishStoreUnavailable(call, false, StorePhase.StoreIfAbsent);
  }
  return { value, outcome: CoordinateOutcome.Unprotected, fencingToken: 0 };
}

/**
 * What a claim the store could not answer (`error`) becomes, by the call's `onStoreUnavailable`: fail-open runs
 * the action unprotected, fail-closed throws `IDEMPOTENCY_STORE_UNAVAILABLE` and the action does not run.
 */
export async function storeUnavailable<T>(
  store: IdempotencyStore,
  call: Call<T>,
  action: IdempotentAction<T>,
  error: unknown,
  emit: EventSink,
): Promise<CoordinatedResult<T>> {
  emit(IdempotencyEventType.StoreError);
  const onStoreUnavailable = call.settings.onStoreUnavailable;
  publishStoreUnavailable(call, false, StorePhase.Claim, { onStoreUnavailable });
  if (onStoreUnavailable === StoreUnavailablePolicy.FailOpen) {
    emit(IdempotencyEventType.FailOpen);
    return runUnprotected(store, call, action, emit);
  }
  if (isIdempotencyError(error) && error.code === IdempotencyErrorCode.StoreUnavailable) throw error;
  throw new IdempotencyStoreUnavailableError('Idempotency store unavailable', { ...call, cause: error });
}
