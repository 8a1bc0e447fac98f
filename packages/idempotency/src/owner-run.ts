import { tryEncode } from './codecs.js';
import type { Call } from './call.js';
import {
  LeaseLostReason,
  publishLeaseLost,
  publishReleased,
  publishStored,
  publishStoreUnavailable,
  StorePhase,
} from './channels.js';
import { IdempotencyLeaseLostError, IdempotencyUnencodableResultError } from './errors.js';
import { LazyAbortController, LeaseRenewal, type LeaseEventSink } from './lease-renewal.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  type ActionContext,
  type CoordinatedResult,
} from './options.js';
import type { IdempotencyStore } from './store.js';

/** The action an idempotent call protects. */
export type IdempotentAction<T> = (context: ActionContext) => Promise<T>;

/** The error for a value the codec cannot encode; the action does not run again for the key within its TTL. */
export function unencodableError(call: Call<unknown>, cause?: unknown): IdempotencyUnencodableResultError {
  return new IdempotencyUnencodableResultError(
    'The action succeeded but its result cannot be encoded; it will not run again for this key',
    { operation: call.operation, key: call.key, cause },
  );
}

/**
 * The owner's side of reserve -> act -> save, once a claim granted the key: runs the action while its lease is
 * watched (and renewed), then completes the record with the result, or releases it if the action failed
 * (failures are not stored, so a retry runs the action again). Every write is owner-checked by the store.
 *
 * @param claimSentAt - taken before the claim was sent: the lease Redis granted cannot end earlier than this
 *   plus leaseMs, so the local deadline runs from here.
 * @param emit - reports an event of this call (with the duration of a lease's store call where it has one).
 */
export async function runAsOwner<T>(
  store: IdempotencyStore,
  call: Call<T>,
  action: IdempotentAction<T>,
  fencingToken: number,
  claimSentAt: number,
  emit: LeaseEventSink,
): Promise<CoordinatedResult<T>> {
  const controller = new LazyAbortController();
  // The lease's own events also go to the channels, with the owner's fencing token.
  const leaseEmit: LeaseEventSink = (type, durationMs, reason) => {
    emit(type, durationMs);
    if (type === IdempotencyEventType.LeaseLost) {
      publishLeaseLost(call, false, fencingToken, reason ?? LeaseLostReason.Expired);
    } else if (type === IdempotencyEventType.StoreError) {
      publishStoreUnavailable(call, false, StorePhase.Renew, { fencingToken });
    }
  };
  const lease = new LeaseRenewal(
    store,
    call.claim,
    claimSentAt,
    controller,
    leaseEmit,
    call.settings.renewLease,
    call.settings.maxLeaseHoldMs,
  );
  let value: T;
  try {
    value = await action({
      get signal() {
        return controller.signal;
      },
      fencingToken,
      protected: true,
    });
  } catch (error) {
    await lease.stop();
    // Failures are not stored: the error may be transient, and a stored failure would replay it forever.
    // Owner-checked, so a stale owner never frees a newer owner's reservation.
    const released = await store.release(call.claim).catch(() => {
      emit(IdempotencyEventType.StoreError);
      publishStoreUnavailable(call, false, StorePhase.Release, { fencingToken });
      return false;
    });
    publishReleased(call, false, fencingToken, released);
    throw error;
  }
  // Awaited only if a renewal is under way: most actions end before the first one.
  const renewal = lease.stop();
  if (renewal) await renewal;
  return completeAsOwner(store, call, emit, controller, { value, fencingToken, lease });
}

/**
 * Stores the owner's result (owner-checked). The action's effect has happened, so from here on nothing lets
 * it run again within the TTL: a value the codec cannot encode is recorded as such, and a lease lost locally
 * still stores the result if the record is still ours (the caller hears `IDEMPOTENCY_LEASE_LOST` either way).
 */
async function completeAsOwner<T>(
  store: IdempotencyStore,
  call: Call<T>,
  emit: LeaseEventSink,
  controller: LazyAbortController,
  { value, fencingToken, lease }: { value: T; fencingToken: number; lease: LeaseRenewal },
): Promise<CoordinatedResult<T>> {
  const leaseLost = lease.lost;
  const { payload, encodeError } = tryEncode(call.request.codec, value, store.unstorable?.bind(store));
  let stored = true;
  try {
    const { operation, key, owner } = call;
    stored = await store.complete({
      operation,
      key,
      owner,
      payload,
      ttlMs: call.request.ttlMs,
      onNotDurable: () => emit(IdempotencyEventType.NotDurable),
    });
    // Written, even if the lease counts as lost locally: the record was still ours.
    if (stored) publishStored(call, false, fencingToken, CoordinateOutcome.Executed, payload === null);
  } catch {
    // The effect happened; failing the call now would make the client retry it. The reservation stays until
    // its lease ends, which is when a repeat could run again: downstream dedup by a stable key covers that.
    emit(IdempotencyEventType.StoreError);
    publishStoreUnavailable(call, false, StorePhase.Complete, { fencingToken });
  }
  if (!stored || leaseLost) {
    // Another owner may hold the key; its record wins and ours is never written over it.
    if (!controller.aborted) {
      emit(IdempotencyEventType.LeaseLost);
      publishLeaseLost(call, false, fencingToken, stored ? lease.lostReason : LeaseLostReason.Refused);
      controller.abort(new IdempotencyLeaseLostError(value, call));
    }
    throw new IdempotencyLeaseLostError(value, call);
  }
  emit(IdempotencyEventType.Miss);
  if (payload === null) throw unencodableError(call, encodeError);
  return { value, outcome: CoordinateOutcome.Executed, fencingToken };
}
