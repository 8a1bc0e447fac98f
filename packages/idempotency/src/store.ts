/** What a claim found, as decided atomically by the store. */
export const ClaimStatus = {
  /** The caller now owns the key: run the action. */
  Acquired: 'acquired',
  /** A result is stored for this key and fingerprint: replay it. */
  Completed: 'completed',
  /** Another owner holds a live lease. */
  InProgress: 'in_progress',
  /** The record (pending or completed) has another fingerprint. */
  Mismatch: 'mismatch',
  /** Something is stored under the key that this format cannot read. */
  Corrupt: 'corrupt',
} as const;

/** One of {@link ClaimStatus}'s values. */
export type ClaimStatus = (typeof ClaimStatus)[keyof typeof ClaimStatus];

/** State of a record, as stored. */
export const RecordState = {
  Pending: 'pending',
  Completed: 'completed',
} as const;

/** One of {@link RecordState}'s values. */
export type RecordState = (typeof RecordState)[keyof typeof RecordState];

/** Identifies one record: the operation scopes the key (e.g. `payment.charge.<tenant>`). */
export interface RecordId {
  readonly operation: string;
  readonly key: string;
}

/** Arguments of {@link IdempotencyStore.claim}. */
export interface ClaimRequest extends RecordId {
  /** Random token naming this attempt; every later write must present it. */
  readonly owner: string;
  readonly fingerprint: string;
  readonly leaseMs: number;
  /** How long the record (and its fencing counter) lives if it is never completed. */
  readonly retainMs: number;
}

/** Result of {@link IdempotencyStore.claim}. */
export type ClaimResult =
  | { readonly status: typeof ClaimStatus.Acquired; readonly fencingToken: number }
  | {
      readonly status: typeof ClaimStatus.Completed;
      /** The stored result; `null` when the action succeeded but its value could not be encoded. */
      readonly payload: string | null;
      readonly fencingToken: number;
    }
  | { readonly status: typeof ClaimStatus.InProgress; readonly retryAfterMs: number }
  | {
      readonly status: typeof ClaimStatus.Mismatch;
      readonly storedFingerprint: string;
      readonly state: RecordState;
    }
  | { readonly status: typeof ClaimStatus.Corrupt; readonly reason: string };

/** Arguments of {@link IdempotencyStore.complete}. */
export interface CompleteRequest extends RecordId {
  readonly owner: string;
  /**
   * The encoded result; `null` records that the action succeeded but its value has no encoding, so a repeat
   * neither runs it again nor replays a value (it gets `IDEMPOTENCY_UNENCODABLE_RESULT`).
   */
  readonly payload: string | null;
  /** Exact lifetime of the stored result, from now. */
  readonly ttlMs: number;
  /**
   * Called when the result was stored but the store could not make it as durable as configured (e.g. too few
   * replicas acknowledged it). Not a failure: the call still resolves true.
   */
  readonly onNotDurable?: () => void;
}

/** Arguments of {@link IdempotencyStore.renew}. */
export interface RenewRequest extends RecordId {
  readonly owner: string;
  readonly leaseMs: number;
}

/** Arguments of {@link IdempotencyStore.release}. */
export interface ReleaseRequest extends RecordId {
  readonly owner: string;
}

/** Arguments of {@link IdempotencyStore.storeIfAbsent}. */
export interface StoreIfAbsentRequest extends RecordId {
  readonly fingerprint: string;
  readonly payload: string;
  readonly ttlMs: number;
}

/**
 * Persistence behind the coordinator. Every method is one atomic step in the store; every write that follows a
 * claim is owner-checked, so a stale owner can never overwrite or delete another owner's record.
 */
export interface IdempotencyStore {
  /**
   * Reserves the key for `owner`, or reports what is there (result, live lease, other fingerprint). A claim of an
   * owner that already holds the record answers "acquired" with the same fencing token.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /**
   * Turns the owner's reservation into the result with the exact TTL. False if the caller no longer owns it.
   * Every method is idempotent for its owner: run twice (a client that resends after a reconnect), it answers the
   * same, e.g. a complete of a record this owner already completed answers true.
   */
  complete(request: CompleteRequest): Promise<boolean>;
  /** Extends the owner's lease. False if the caller no longer owns it. */
  renew(request: RenewRequest): Promise<boolean>;
  /** Gives the key up after a failed action, keeping the fencing counter. False if not the owner. */
  release(request: ReleaseRequest): Promise<boolean>;
  /** Stores a result only if no record exists (unprotected runs never overwrite). True if stored. */
  storeIfAbsent(request: StoreIfAbsentRequest): Promise<boolean>;
  /**
   * Calls `listener` when the record is completed or released, until the returned function is called.
   * Resolves once the subscription is active, so a claim made afterwards cannot miss the notification.
   */
  watch?(id: RecordId, listener: () => void): Promise<() => Promise<void>>;
  /**
   * Why this store cannot keep `payload` exactly (PostgreSQL `text` holds no U+0000), or `undefined` if it can.
   * The coordinator asks before completing: such a value is recorded as unencodable, once, like a codec failure.
   */
  unstorable?(payload: string): string | undefined;
}
