import { prepareCall, type Call, type Settings } from './call.js';
import { publishStored, publishStoreUnavailable, StorePhase } from './channels.js';
import { IdempotencyErrorCode, IdempotencyStoreUnavailableError, isIdempotencyError } from './errors.js';
import type { IdempotentAction } from './owner-run.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  StoreUnavailablePolicy,
  type ActionContext,
  type CoordinatedResult,
  type CoordinateRequest,
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

/**
 * The context of an action run with `enabled: false`, plus `extra` (the transactional forms' `transaction`):
 * unprotected, fencing token 0, and a signal that never aborts. The signal is made only if the action reads it,
 * one per call, so listeners an action adds to it go with the call instead of piling up on a shared one.
 */
export function unprotectedContext<X extends object = Record<never, never>>(extra?: X): ActionContext & X {
  let signal: AbortSignal | undefined;
  return {
    ...(extra as X),
    get signal() {
      return (signal ??= new AbortController().signal);
    },
    fencingToken: 0,
    protected: false,
  };
}

/**
 * A call with `enabled: false`: validated like any other (`prepareCall`, nothing written), then `run` (the action
 * with an {@link unprotectedContext}) at once. The store is not touched; nothing is emitted or published: a call
 * the caller switched off is not coordinated, so it is not observed either.
 */
export async function runDisabled<T>(
  request: CoordinateRequest<T>,
  defaults: Settings,
  run: () => Promise<T>,
): Promise<CoordinatedResult<T>> {
  prepareCall(request, defaults);
  return { value: await run(), outcome: CoordinateOutcome.Unprotected, fencingToken: 0 };
}
