import { randomBytes } from 'node:crypto';
import {
  IdempotencyCorruptRecordError,
  IdempotencyErrorCode,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  IdempotencyLeaseLostError,
  IdempotencyStoreUnavailableError,
  InvalidIdempotencyOptionsError,
  isIdempotencyError,
} from './errors.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  IdempotencyLimits,
  InFlightMode,
  StoreUnavailablePolicy,
  type ActionContext,
  type CoordinatedResult,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyEvent,
} from './options.js';
import { ClaimStatus, type IdempotencyStore, type RecordId } from './store.js';
import { assertIntegerIn, assertValidKey } from './validation.js';

/** The action an idempotent call protects. */
export type IdempotentAction<T> = (context: ActionContext) => Promise<T>;

// Owner tokens only need to be unique, not secret: a random per-process prefix and a counter are unique across
// processes and cost nothing per call (random bytes per call showed up in profiles of the hot path).
const ownerPrefix = randomBytes(12).toString('base64url');
let ownerCounter = 0;

const IN_FLIGHT_MODES: readonly string[] = Object.values(InFlightMode);
const STORE_UNAVAILABLE_POLICIES: readonly string[] = Object.values(StoreUnavailablePolicy);

/** Longest a waiter sleeps between claims when no notification arrives (a safety net, not the wake-up path). */
const MAX_WAIT_POLL_MS = 1_000;

interface Call<T> extends RecordId {
  readonly request: CoordinateRequest<T>;
  readonly fingerprint: string;
  readonly owner: string;
  readonly leaseMs: number;
  readonly startedAt: number;
}

/**
 * Runs an action at most once per operation and key, and replays its stored result to every repeat.
 *
 * Reserve -> act -> save: one atomic claim either reserves the key (owner token, fencing token, lease) or answers
 * with what is there (the result, "in progress", another fingerprint). The owner runs the action while renewing
 * its lease, then completes the record with the exact TTL, or releases it if the action failed (failures are not
 * stored, so a retry runs the action again). Every write after the claim is owner-checked.
 */
export class IdempotencyCoordinator {
  private readonly inFlight: InFlightMode;
  private readonly leaseMs: number;
  private readonly renewLease: boolean;
  private readonly waitTimeoutMs: number;
  private readonly onStoreUnavailable: StoreUnavailablePolicy;
  private readonly onEvent: ((event: IdempotencyEvent) => void) | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    options: CoordinatorOptions = {},
  ) {
    this.inFlight = options.inFlight ?? InFlightMode.Wait;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.renewLease = options.renewLease ?? true;
    this.waitTimeoutMs = options.waitTimeoutMs ?? this.leaseMs;
    this.onStoreUnavailable = options.onStoreUnavailable ?? StoreUnavailablePolicy.FailClosed;
    this.onEvent = options.onEvent;
    assertIntegerIn('leaseMs', this.leaseMs, IdempotencyLimits.minLeaseMs, IdempotencyLimits.maxTtlMs);
    assertIntegerIn('waitTimeoutMs', this.waitTimeoutMs, 0);
    assertOneOf('inFlight', this.inFlight, IN_FLIGHT_MODES);
    assertOneOf('onStoreUnavailable', this.onStoreUnavailable, STORE_UNAVAILABLE_POLICIES);
  }

  /**
   * Runs `action` once for `request.operation` + `request.key` and returns its result; repeats get the stored
   * result. See {@link coordinateWithOutcome} to learn whether the value was replayed.
   *
   * @throws InvalidIdempotencyKeyError before touching the store, for a bad key or operation.
   * @throws IdempotencyKeyReuseError when the key was used with another fingerprint.
   * @throws IdempotencyInProgressError in raise mode, or when waiting timed out.
   * @throws IdempotencyStoreUnavailableError when fail-closed and the store failed before the action.
   * @throws IdempotencyLeaseLostError when another owner took over while the action ran.
   * @throws IdempotencyCorruptRecordError when the stored record cannot be decoded.
   * Errors thrown by the action are rethrown unchanged, after the reservation was released.
   */
  async coordinate<T>(request: CoordinateRequest<T>, action: IdempotentAction<T>): Promise<T> {
    return (await this.coordinateWithOutcome(request, action)).value;
  }

  /** Like {@link coordinate}, and tells how the value was obtained (executed, replayed, unprotected). */
  async coordinateWithOutcome<T>(
    request: CoordinateRequest<T>,
    action: IdempotentAction<T>,
  ): Promise<CoordinatedResult<T>> {
    const call = this.prepare(request);
    const mode = request.inFlight ?? this.inFlight;
    if (request.inFlight !== undefined) assertOneOf('inFlight', mode, IN_FLIGHT_MODES);
    const waitTimeoutMs = request.waitTimeoutMs ?? this.waitTimeoutMs;
    const claimRequest = {
      operation: call.operation,
      key: call.key,
      owner: call.owner,
      fingerprint: call.fingerprint,
      leaseMs: call.leaseMs,
      // The record (and its fencing counter) must outlive both the lease it grants and the result it may hold.
      retainMs: Math.max(request.ttlMs, call.leaseMs),
    };
    let waiter: Waiter | undefined;
    let stopWatching: (() => Promise<void>) | undefined;
    let seenInProgress = false;
    try {
      for (;;) {
        let claim;
        // Taken before the claim: the lease Redis grants cannot end earlier than this plus leaseMs.
        const claimSentAt = Date.now();
        try {
          claim = await this.store.claim(claimRequest);
        } catch (error) {
          return await this.storeUnavailable(call, action, error);
        }
        switch (claim.status) {
          case ClaimStatus.Acquired:
            return await this.runAsOwner(call, action, claim.fencingToken, claimSentAt);
          case ClaimStatus.Completed: {
            // Decoded before the event: an unreadable result is a corrupt_record, not a hit.
            const value = this.decode(call, claim.payload);
            this.emit(seenInProgress ? IdempotencyEventType.Waited : IdempotencyEventType.Hit, call);
            return { value, outcome: CoordinateOutcome.Replayed, fencingToken: claim.fencingToken };
          }
          case ClaimStatus.Mismatch:
            this.emit(IdempotencyEventType.KeyReuse, call);
            throw new IdempotencyKeyReuseError(claim.storedFingerprint, call.fingerprint, call);
          case ClaimStatus.Corrupt:
            this.emit(IdempotencyEventType.CorruptRecord, call);
            throw new IdempotencyCorruptRecordError(`Corrupt idempotency record: ${claim.reason}`, call);
          case ClaimStatus.InProgress:
            break;
        }
        if (!seenInProgress) this.emit(IdempotencyEventType.InProgress, call);
        seenInProgress = true;
        if (mode === InFlightMode.Raise) throw new IdempotencyInProgressError(claim.retryAfterMs, call);
        if (mode === InFlightMode.Run) return await this.runUnprotected(call, action);

        const remainingMs = call.startedAt + waitTimeoutMs - Date.now();
        if (remainingMs <= 0) throw new IdempotencyInProgressError(claim.retryAfterMs, call);
        waiter ??= new Waiter();
        if (!stopWatching && this.store.watch) {
          try {
            const w = waiter;
            stopWatching = await this.store.watch(call, () => w.wake());
            // Subscribed after the last claim: claim again at once, or a completion in between would be missed.
            continue;
          } catch {
            // Without push the timer below still bounds the wait.
            this.emit(IdempotencyEventType.StoreError, call);
            stopWatching = async () => {};
          }
        }
        // Woken by the owner's complete/release; else at the end of its lease (a crash) or the poll cap.
        await waiter.sleep(Math.min(claim.retryAfterMs + 1, remainingMs, MAX_WAIT_POLL_MS));
      }
    } finally {
      if (stopWatching) await stopWatching();
    }
  }

  private prepare<T>(request: CoordinateRequest<T>): Call<T> {
    assertValidKey(request.operation, request.key);
    assertIntegerIn('ttlMs', request.ttlMs, IdempotencyLimits.minTtlMs, IdempotencyLimits.maxTtlMs);
    const leaseMs = request.leaseMs ?? this.leaseMs;
    if (request.leaseMs !== undefined) {
      assertIntegerIn('leaseMs', leaseMs, IdempotencyLimits.minLeaseMs, IdempotencyLimits.maxTtlMs);
    }
    if (request.fingerprint !== undefined && typeof request.fingerprint !== 'string') {
      throw new InvalidIdempotencyOptionsError('fingerprint must be a string', request);
    }
    return {
      request,
      operation: request.operation,
      key: request.key,
      fingerprint: request.fingerprint ?? '',
      owner: `${ownerPrefix}.${(ownerCounter++).toString(36)}`,
      leaseMs,
      startedAt: Date.now(),
    };
  }

  private async runAsOwner<T>(
    call: Call<T>,
    action: IdempotentAction<T>,
    fencingToken: number,
    claimSentAt: number,
  ): Promise<CoordinatedResult<T>> {
    const controller = new LazyAbortController();
    const renewal =
      (call.request.renewLease ?? this.renewLease)
        ? new LeaseRenewal(this.store, call, claimSentAt, controller, (type, durationMs) =>
            this.emit(type, call, durationMs),
          )
        : undefined;
    let value: T;
    let payload: string;
    try {
      value = await action({
        get signal() {
          return controller.signal;
        },
        fencingToken,
        protected: true,
      });
      await renewal?.stop();
      payload = call.request.codec.encode(value);
    } catch (error) {
      await renewal?.stop();
      // Failures are not stored: the error may be transient, and a stored failure would replay it forever.
      // Owner-checked, so a stale owner never frees a newer owner's reservation.
      await this.store.release(call).catch(() => this.emit(IdempotencyEventType.StoreError, call));
      throw error;
    }

    let stored: boolean;
    try {
      stored = await this.store.complete({ ...call, payload, ttlMs: call.request.ttlMs });
    } catch {
      // The effect happened; failing the call now would make the client retry it. The reservation stays until
      // its lease ends, which is when a repeat could run again: downstream dedup by a stable key covers that.
      this.emit(IdempotencyEventType.StoreError, call);
      this.emit(IdempotencyEventType.Miss, call);
      return { value, outcome: CoordinateOutcome.Executed, fencingToken };
    }
    if (!stored) {
      // Another owner took the key after our lease ran out; its record wins and ours is never written over it.
      if (!controller.aborted) {
        this.emit(IdempotencyEventType.LeaseLost, call);
        controller.abort(new IdempotencyLeaseLostError(value, call));
      }
      throw new IdempotencyLeaseLostError(value, call);
    }
    this.emit(IdempotencyEventType.Miss, call);
    return { value, outcome: CoordinateOutcome.Executed, fencingToken };
  }

  private async runUnprotected<T>(call: Call<T>, action: IdempotentAction<T>): Promise<CoordinatedResult<T>> {
    const value = await action({
      get signal() {
        return new AbortController().signal;
      },
      fencingToken: 0,
      protected: false,
    });
    try {
      await this.store.storeIfAbsent({
        ...call,
        payload: call.request.codec.encode(value),
        ttlMs: call.request.ttlMs,
      });
    } catch {
      this.emit(IdempotencyEventType.StoreError, call);
    }
    return { value, outcome: CoordinateOutcome.Unprotected, fencingToken: 0 };
  }

  private async storeUnavailable<T>(
    call: Call<T>,
    action: IdempotentAction<T>,
    error: unknown,
  ): Promise<CoordinatedResult<T>> {
    this.emit(IdempotencyEventType.StoreError, call);
    const policy = call.request.onStoreUnavailable ?? this.onStoreUnavailable;
    if (policy === StoreUnavailablePolicy.FailOpen) {
      this.emit(IdempotencyEventType.FailOpen, call);
      return this.runUnprotected(call, action);
    }
    if (isIdempotencyError(error) && error.code === IdempotencyErrorCode.StoreUnavailable) throw error;
    throw new IdempotencyStoreUnavailableError('Idempotency store unavailable', { ...call, cause: error });
  }

  private decode<T>(call: Call<T>, payload: string): T {
    try {
      return call.request.codec.decode(payload);
    } catch (error) {
      this.emit(IdempotencyEventType.CorruptRecord, call);
      throw new IdempotencyCorruptRecordError('Stored idempotency result cannot be decoded', {
        ...call,
        cause: error,
      });
    }
  }

  private emit(type: IdempotencyEvent['type'], call: Call<unknown>, durationMs?: number): void {
    if (!this.onEvent) return;
    try {
      this.onEvent({
        type,
        operation: call.operation,
        durationMs: durationMs ?? Date.now() - call.startedAt,
      });
    } catch {
      // An observer must never change the outcome of a call.
    }
  }
}

/** Renews the owner's lease every `leaseMs / 3` until stopped; aborts the action when the lease is lost. */
class LeaseRenewal {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private stopped = false;
  private leaseEndsAt: number;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly call: Call<unknown>,
    grantedAt: number,
    private readonly controller: LazyAbortController,
    private readonly emit: (type: IdempotencyEvent['type'], durationMs?: number) => void,
  ) {
    // From the grant, not from the call's start: a waiter may have waited long before it took the key over.
    this.leaseEndsAt = grantedAt + call.leaseMs;
    this.schedule();
  }

  /** Stops renewing and waits for a renewal under way, so that complete/release always come after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.inFlight = this.renew();
      },
      Math.max(1, Math.floor(this.call.leaseMs / 3)),
    );
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const started = Date.now();
    try {
      const renewed = await this.store.renew(this.call);
      if (this.stopped) return;
      if (!renewed) {
        this.lost();
        return;
      }
      this.leaseEndsAt = started + this.call.leaseMs;
      this.emit(IdempotencyEventType.LeaseRenewed, Date.now() - started);
    } catch {
      this.emit(IdempotencyEventType.StoreError, Date.now() - started);
      // We cannot tell whether another owner took over once our lease has run out: assume the worst.
      if (!this.stopped && Date.now() >= this.leaseEndsAt) {
        this.lost();
        return;
      }
    }
    this.schedule();
  }

  private lost(): void {
    this.stopped = true;
    this.emit(IdempotencyEventType.LeaseLost);
    this.controller.abort(new IdempotencyLeaseLostError(undefined, this.call));
  }
}

/** An AbortController created only if the action reads its signal (most never do; it is not free per call). */
class LazyAbortController {
  private controller: AbortController | undefined;
  private reason: unknown;
  aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** A sleep that a notification ends early; a notification that arrives while awake is not lost. */
class Waiter {
  private pending = false;
  private resolve: (() => void) | undefined;

  wake(): void {
    if (this.resolve) {
      this.resolve();
      this.resolve = undefined;
    } else {
      this.pending = true;
    }
  }

  async sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(
        () => {
          this.resolve = undefined;
          resolve();
        },
        Math.max(0, ms),
      );
      this.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function assertOneOf(name: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) {
    throw new InvalidIdempotencyOptionsError(
      `${name} must be one of ${allowed.join(', ')}, got ${String(value)}`,
    );
  }
}
