import { jsonCodec, type Codec } from './codecs.js';
import type { IdempotencyCoordinator } from './coordinator.js';
import { parseDuration, type Duration } from './duration.js';
import { InvalidIdempotencyKeyError, InvalidIdempotencyOptionsError } from './errors.js';
import { fingerprintOf, type FingerprintValue } from './fingerprint.js';
import type {
  IdempotencyContext,
  IdempotentCallSettings,
  IdempotentFunctionOptions,
} from './idempotent-function.js';
import { IDEMPOTENCY_DEFAULTS, IDEMPOTENCY_LIMITS } from './limits.js';
import type { ActionContext, CoordinateRequest } from './options.js';
import { assertIntegerIn, operationProblem } from './validation.js';

// What makeIdempotent and its forms do with their options: check them once, and per call turn the arguments into
// the coordinator's request and the coordinator's context into the action's.

/** The options of a function, checked once; per call only what the functions return is left to check. */
export interface Made<Args extends readonly unknown[], T> {
  readonly operation: (...args: Args) => string;
  readonly key: (...args: Args) => string;
  readonly ttlMs: number;
  readonly codec: Codec<T>;
  readonly fingerprint: ((...args: Args) => unknown) | undefined;
  readonly settings: ((...args: Args) => IdempotentCallSettings) | undefined;
}

/** Throws `InvalidIdempotencyOptionsError` naming `name` unless `value` is a function (or, if `optional`, absent). */
export function assertFunction(name: string, value: unknown, optional = false): void {
  if (optional && value === undefined) return;
  if (typeof value !== 'function') {
    throw new InvalidIdempotencyOptionsError(`${name} must be a function, got ${describeValue(value)}`);
  }
}

/** A value, as an error message quotes it. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/** The milliseconds of a `ttl` (the function's or a call's), in IDEMPOTENCY_LIMITS.ttlMs. */
function ttlMsOf(ttl: Duration): number {
  const ms = parseDuration(ttl, 'ttl');
  assertIntegerIn('ttl', ms, IDEMPOTENCY_LIMITS.ttlMs.min, IDEMPOTENCY_LIMITS.ttlMs.max);
  return ms;
}

/** Checks what `make*` was given, once, and resolves the defaults. */
export function checkOptions<Args extends readonly unknown[], T>(
  coordinator: IdempotencyCoordinator,
  action: unknown,
  options: IdempotentFunctionOptions<Args, T>,
): Made<Args, T> {
  if (typeof (coordinator as Partial<IdempotencyCoordinator> | null)?.coordinateWithOutcome !== 'function') {
    throw new InvalidIdempotencyOptionsError('coordinator must be an IdempotencyCoordinator');
  }
  assertFunction('action', action);
  if (typeof options !== 'object' || options === null) {
    throw new InvalidIdempotencyOptionsError(`options must be an object, got ${describeValue(options)}`);
  }
  const { operation, key, codec, fingerprint, settings } = options;
  if (typeof operation === 'string') {
    const problem = operationProblem(operation);
    if (problem !== undefined) throw new InvalidIdempotencyOptionsError(`operation option: ${problem}`);
  } else {
    assertFunction('operation', operation);
  }
  assertFunction('key', key);
  assertFunction('fingerprint', fingerprint, true);
  assertFunction('settings', settings, true);
  if (codec !== undefined && (typeof codec?.encode !== 'function' || typeof codec?.decode !== 'function')) {
    throw new InvalidIdempotencyOptionsError('codec must have encode and decode functions');
  }
  return {
    operation: typeof operation === 'string' ? () => operation : operation,
    key,
    ttlMs: options.ttl === undefined ? IDEMPOTENCY_DEFAULTS.ttlMs : ttlMsOf(options.ttl),
    codec: codec ?? jsonCodec<T>(),
    fingerprint,
    settings,
  };
}

/** The coordinator's request for one call: the functions' answers, the call's settings over the function's. */
export function requestFor<Args extends readonly unknown[], T>(
  made: Made<Args, T>,
  args: Args,
): CoordinateRequest<T> {
  const operation = made.operation(...args);
  if (typeof operation !== 'string') {
    throw new InvalidIdempotencyKeyError(
      `the operation function returned ${describeValue(operation)}, not a string`,
      {},
    );
  }
  const key = made.key(...args);
  if (typeof key !== 'string') {
    throw new InvalidIdempotencyKeyError(`the key function returned ${describeValue(key)}, not a string`, {
      operation,
    });
  }
  const settings: IdempotentCallSettings = made.settings?.(...args) ?? {};
  if (typeof settings !== 'object' || settings === null) {
    throw new InvalidIdempotencyOptionsError(
      `settings must return an object, got ${describeValue(settings)}`,
    );
  }
  // Spelled out: only the settings a call may change reach the coordinator, whatever else the object carries.
  const { enabled, ttl, inFlight, leaseMs, renewLease, waitTimeoutMs, onStoreUnavailable, maxLeaseHoldMs } =
    settings;
  return {
    operation,
    key,
    ttlMs: ttl === undefined ? made.ttlMs : ttlMsOf(ttl),
    codec: made.codec,
    fingerprint: made.fingerprint && fingerprintOf(made.fingerprint(...args) as FingerprintValue),
    enabled,
    inFlight,
    leaseMs,
    renewLease,
    waitTimeoutMs,
    onStoreUnavailable,
    maxLeaseHoldMs,
  };
}

/**
 * The action's context: the coordinator's, with the call's operation and key, plus `extra` (the transaction). The
 * signal is read through, not copied: the coordinator makes it only when an action reads it.
 */
export function contextOf<X extends object = Record<never, never>>(
  context: ActionContext,
  request: CoordinateRequest<unknown>,
  extra?: X,
): IdempotencyContext & X {
  return {
    ...(extra as X),
    operation: request.operation,
    key: request.key,
    get signal() {
      return context.signal;
    },
    fencingToken: context.fencingToken,
    protected: context.protected,
  };
}
