import { InvalidIdempotencyKeyError, InvalidIdempotencyOptionsError } from './errors.js';
import { IDEMPOTENCY_LIMITS } from './limits.js';

// C0 controls, DEL and C1 controls: invisible in logs and unsafe in headers and Redis key names.
const CONTROL = /\p{Cc}/u;
// A lone surrogate (in `u` mode a paired one is one code point, not a match): not well-formed UTF-16. Redis would
// store it as U+FFFD, so `k\uD800`, `k\uDBFF` and `k\uFFFD` would share one record.
const LONE_SURROGATE = /\p{Cs}/u;

type NameLimits = { readonly minLength: number; readonly maxLength: number };

/** Why `value` cannot name a record (`what` is `key` or `operation`), or `undefined` if it can. */
function nameProblem(what: string, value: unknown, limits: NameLimits): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return `${what} is empty`;
  if (value.trim().length === 0) return `${what} is blank`;
  if (value.includes(IDEMPOTENCY_LIMITS.separator))
    return `${what} contains '${IDEMPOTENCY_LIMITS.separator}'`;
  if (CONTROL.test(value)) return `${what} contains control characters`;
  if (LONE_SURROGATE.test(value)) return `${what} is not well-formed Unicode (a lone surrogate)`;
  // Counted in code points; the spread only runs when UTF-16 units could exceed the limit (the hot path skips it).
  if (value.length > limits.maxLength && [...value].length > limits.maxLength) {
    return `${what} is longer than ${limits.maxLength} characters`;
  }
  return undefined;
}

/**
 * Why `key` is not an acceptable idempotency key, or `undefined` if it is. Exported so HTTP edges can reject a bad
 * key with the same rules ({@link IDEMPOTENCY_LIMITS}) before calling anything.
 */
export function idempotencyKeyProblem(key: unknown): string | undefined {
  return nameProblem('key', key, IDEMPOTENCY_LIMITS.key);
}

/** Why `operation` cannot name a record, or `undefined` if it can (the same rules as {@link assertValidKey}). */
export function operationProblem(operation: unknown): string | undefined {
  // A blank operation reads as empty: it names no scope at all.
  if (typeof operation === 'string' && operation.length > 0 && operation.trim().length === 0) {
    return 'operation is empty';
  }
  return nameProblem('operation', operation, IDEMPOTENCY_LIMITS.operation);
}

/** Throws {@link InvalidIdempotencyKeyError} for a bad operation or key. */
export function assertValidKey(operation: string, key: string): void {
  const problem = operationProblem(operation) ?? idempotencyKeyProblem(key);
  if (problem) throw new InvalidIdempotencyKeyError(problem, { operation, key });
}

/** Throws {@link InvalidIdempotencyOptionsError} unless `value` is an integer in [min, max]. */
export function assertIntegerIn(
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidIdempotencyOptionsError(
      `${name} must be an integer between ${min} and ${max}, got ${value}`,
    );
  }
}

/** Throws {@link InvalidIdempotencyOptionsError} unless `value` is one of `allowed`. */
export function assertOneOf(name: string, value: unknown, allowed: readonly unknown[]): void {
  if (!allowed.includes(value)) {
    throw new InvalidIdempotencyOptionsError(
      `${name} must be one of ${allowed.join(', ')}, got ${String(value)}`,
    );
  }
}
