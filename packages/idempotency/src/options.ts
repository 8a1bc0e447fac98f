import type { IdempotencyTracer } from './tracer.js';
import type { Codec } from './codecs.js';

/** What a caller does when another owner holds the key. */
export const InFlightMode = {
  /** Wait (pushed wake-up, timer fallback) for the owner to finish, then return its result; take over if it gave up. */
  Wait: 'wait',
  /** Throw `IDEMPOTENCY_IN_PROGRESS` at once (HTTP: 409 with Retry-After). */
  Raise: 'raise',
  /**
   * Run the action anyway, without a reservation. HAZARD: the effect happens twice. Its result is stored only if
   * no record exists, so it never overwrites the owner. For demonstrations and effects that are harmless to repeat.
   */
  Run: 'run',
} as const;

/** One of {@link InFlightMode}'s values. */
export type InFlightMode = (typeof InFlightMode)[keyof typeof InFlightMode];

/** What happens when the store fails or times out before the action runs. */
export const StoreUnavailablePolicy = {
  /** Throw `IDEMPOTENCY_STORE_UNAVAILABLE`; the action does not run (HTTP: 503 with Retry-After). */
  FailClosed: 'fail-closed',
  /** Run the action unprotected (duplicates possible during the outage); never overwrite a record afterwards. */
  FailOpen: 'fail-open',
} as const;

/** One of {@link StoreUnavailablePolicy}'s values. */
export type StoreUnavailablePolicy = (typeof StoreUnavailablePolicy)[keyof typeof StoreUnavailablePolicy];

/** Kinds of {@link IdempotencyEvent}. */
export const IdempotencyEventType = {
  /** A stored result was replayed. */
  Hit: 'hit',
  /** The caller owned the key, ran the action and stored its result. */
  Miss: 'miss',
  /** Another owner held the key. */
  InProgress: 'in_progress',
  /** The key came with another fingerprint. */
  KeyReuse: 'key_reuse',
  /** A waiter got the owner's result after waiting. */
  Waited: 'waited',
  LeaseRenewed: 'lease_renewed',
  LeaseLost: 'lease_lost',
  /** A store call failed or timed out. */
  StoreError: 'store_error',
  /** The action ran unprotected because the store was unavailable. */
  FailOpen: 'fail_open',
  CorruptRecord: 'corrupt_record',
  /**
   * A result was stored but less durably than the store is configured for (Redis: fewer replicas acknowledged it
   * than `durability.replicas`); a failover now could lose it and let a retry run the action again.
   */
  NotDurable: 'not_durable',
} as const;

/** One of {@link IdempotencyEventType}'s values. */
export type IdempotencyEventType = (typeof IdempotencyEventType)[keyof typeof IdempotencyEventType];

/** What the coordinator reports to {@link CoordinatorOptions.onEvent}, e.g. for metrics. */
export interface IdempotencyEvent {
  readonly type: IdempotencyEventType;
  readonly operation: string;
  /** Time since `coordinate` was called (for `lease_renewed` and `store_error`: of that store call). */
  readonly durationMs: number;
}

/** Options of the {@link IdempotencyCoordinator}. */
export interface CoordinatorOptions {
  /**
   * What a duplicate does while the first request runs.
   * @default IDEMPOTENCY_DEFAULTS.inFlight ('wait')
   */
  inFlight?: InFlightMode;
  /**
   * How long a reservation lives without renewal: a crashed owner blocks its key at most this long.
   * @default IDEMPOTENCY_DEFAULTS.leaseMs (30_000)
   */
  leaseMs?: number;
  /**
   * Renew the lease while the action runs (every `leaseMs / 3`, owner-checked), so a slow action is never run
   * twice. When a renewal is refused the action's `signal` aborts.
   * @default IDEMPOTENCY_DEFAULTS.renewLease (true)
   */
  renewLease?: boolean;
  /**
   * The longest an owner keeps its reservation by renewing it, from its claim: no renewal is sent that would
   * extend the lease past this, so an action that hangs loses its lease (its `signal` aborts, the call throws
   * `IDEMPOTENCY_LEASE_LOST`) between `maxLeaseHoldMs - leaseMs / 3` and `maxLeaseHoldMs` after the claim, and
   * another caller can take the key over, instead of the key staying reserved for as long as the action hangs.
   * An integer of ms from 10 to 30 days (`IDEMPOTENCY_LIMITS.maxLeaseHoldMs`); below `leaseMs * 4 / 3` the lease
   * is never renewed (held `leaseMs`). No effect without `renewLease`, nor in transactional mode (no lease there:
   * the transaction holds the key).
   * @default undefined (no cap: renewed for as long as the action runs)
   */
  maxLeaseHoldMs?: number;
  /**
   * How long a waiter waits in `wait` mode before `IDEMPOTENCY_IN_PROGRESS`.
   * @default leaseMs
   */
  waitTimeoutMs?: number;
  /**
   * What to do when the store is unavailable before the action.
   * @default IDEMPOTENCY_DEFAULTS.onStoreUnavailable ('fail-closed')
   */
  onStoreUnavailable?: StoreUnavailablePolicy;
  /** Receives every outcome; must not throw (errors are swallowed). */
  onEvent?: (event: IdempotencyEvent) => void;
  /**
   * Records a span `idempotency.coordinate` per call (`idempotency.operation`, `idempotency.outcome`,
   * `idempotency.fencing_token`, `idempotency.key_hash`: never the key itself), active while the store and the
   * action run, with waits, renewals and store errors as its events. Only `@opentelemetry/api` is used: the
   * service registers the SDK.
   * @default undefined (no span)
   */
  tracer?: IdempotencyTracer;
}

/** One idempotent call. */
export interface CoordinateRequest<T> {
  /**
   * The call's off switch. `false`: the action runs at once, unprotected, and nothing touches the store (no
   * claim, no record, no lease): its context says `protected: false` with fencing token 0 and a signal that never
   * aborts, and `...WithOutcome` reports `unprotected`. The request is still validated (key, operation, TTL,
   * per-call options), so a call that would be refused when switched on is refused when off too. A disabled call
   * is not coordinated, so it is not observed either: no `onEvent` event, no span, no diagnostics-channel message
   * (not even `stored`: nothing is stored). The transactional forms hand the action the caller's transaction all
   * the same (`coordinateOptimisticallyWithOutcome` runs it in one transaction of its runner), and still need a
   * store that supports them.
   *
   * This is the switch for a feature flag or a per-tenant setting, so no caller writes an "if idempotency is
   * off" branch around the coordinator.
   *
   * @default true
   * @throws InvalidIdempotencyOptionsError (the call's promise rejects) when it is not a boolean.
   * @example
   * ```ts
   * await coordinator.coordinateWithOutcome({ ...request, enabled: flags.idempotency }, charge);
   * // { value, outcome: 'unprotected', fencingToken: 0 } when the flag is off
   * ```
   */
  readonly enabled?: boolean;
  /** Scope of the key, e.g. `payment.charge.<tenant>`: 1-100 characters, no `:` or control characters. */
  readonly operation: string;
  /** The client's idempotency key: 1-255 characters, not blank, no `:` or control characters. */
  readonly key: string;
  /** Exact lifetime of the stored result in ms: at least 1 s, at most 30 days. */
  readonly ttlMs: number;
  readonly codec: Codec<T>;
  /**
   * Fingerprint of the request's parameters ({@link fingerprintOf}); the same key with another fingerprint is
   * refused with `IDEMPOTENCY_KEY_REUSE`.
   * @default '' (parameters are not compared)
   */
  readonly fingerprint?: string;
  /** Per-call override of {@link CoordinatorOptions.inFlight}. */
  readonly inFlight?: InFlightMode;
  /** Per-call override of {@link CoordinatorOptions.leaseMs}. */
  readonly leaseMs?: number;
  /** Per-call override of {@link CoordinatorOptions.renewLease}. */
  readonly renewLease?: boolean;
  /**
   * Per-call override of {@link CoordinatorOptions.maxLeaseHoldMs}.
   * @default the coordinator's (undefined: no cap)
   */
  readonly maxLeaseHoldMs?: number;
  /** Per-call override of {@link CoordinatorOptions.waitTimeoutMs}. */
  readonly waitTimeoutMs?: number;
  /** Per-call override of {@link CoordinatorOptions.onStoreUnavailable}. */
  readonly onStoreUnavailable?: StoreUnavailablePolicy;
}

/** What the action receives. */
export interface ActionContext {
  /** Aborted when the lease is lost (renewal refused); stop writing and give up. */
  readonly signal: AbortSignal;
  /**
   * Grows with every owner of this operation and key; pass it to downstream writes so they can reject a stale
   * owner. 0 for an unprotected run (fail-open, run-mode duplicate, `enabled: false`).
   */
  readonly fencingToken: number;
  /** False when the action runs without a reservation (fail-open, run-mode duplicate, `enabled: false`). */
  readonly protected: boolean;
}

/** How {@link CoordinatedResult.value} was obtained. */
export const CoordinateOutcome = {
  /** This call owned the key and ran the action. */
  Executed: 'executed',
  /** A stored result (possibly after waiting). */
  Replayed: 'replayed',
  /** The action ran without a reservation (fail-open, run-mode duplicate, `enabled: false`). */
  Unprotected: 'unprotected',
} as const;

/** One of {@link CoordinateOutcome}'s values. */
export type CoordinateOutcome = (typeof CoordinateOutcome)[keyof typeof CoordinateOutcome];

/** Result of `coordinateWithOutcome`. */
export interface CoordinatedResult<T> {
  readonly value: T;
  readonly outcome: CoordinateOutcome;
  /** The fencing token of the owner that produced the value (0 for unprotected runs). */
  readonly fencingToken: number;
}
