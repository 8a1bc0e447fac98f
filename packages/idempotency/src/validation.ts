import { InvalidIdempotencyKeyError, InvalidIdempotencyOptionsError } from './errors.js';
import { IdempotencyLimits } from './options.js';

// C0 controls, DEL and C1 controls: invisible in logs and unsafe in headers and Redis key names.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `key` is not an acceptable idempotency key, or `undefined` if it is. Exported so HTTP edges can reject a bad
 * key with the same rules before calling anything.
 */
export function idempotencyKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'key is empty';
  if (key.trim().length === 0) return 'key is blank';
  if (key.includes(':')) return "key contains ':'";
  if (CONTROL.test(key)) return 'key contains control characters';
  // Counted in code points; the spread only runs when UTF-16 units could exceed the limit (the hot path skips it).
  if (key.length > IdempotencyLimits.maxKeyLength && [...key].length > IdempotencyLimits.maxKeyLength) {
    return `key is longer than ${IdempotencyLimits.maxKeyLength} characters`;
  }
  return undefined;
}

function operationProblem(operation: unknown): string | undefined {
  if (typeof operation !== 'string' || operation.trim().length === 0) return 'operation is empty';
  if (operation.includes(':')) return "operation contains ':'";
  if (CONTROL.test(operation)) return 'operation contains control characters';
  if (
    operation.length > IdempotencyLimits.maxOperationLength &&
    [...operation].length > IdempotencyLimits.maxOperationLength
  ) {
    return `operation is longer than ${IdempotencyLimits.maxOperationLength} characters`;
  }
  return undefined;
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
