import { InvalidIdempotencyOptionsError } from './errors.js';

/**
 * A duration: milliseconds as a number, or a number with a unit: `'500ms'`, `'90s'`, `'15m'`, `'24h'`, `'7d'`.
 */
export type Duration = number | `${number}ms` | `${number}s` | `${number}m` | `${number}h` | `${number}d`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * A {@link Duration} in whole milliseconds.
 *
 * @throws InvalidIdempotencyOptionsError naming `name`, for anything else (a negative or fractional number of
 * milliseconds, an unknown unit, spaces).
 */
export function parseDuration(value: Duration, name: string): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (typeof value === 'string') {
    const match = DURATION.exec(value);
    if (match !== null) {
      const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
      if (Number.isSafeInteger(ms)) return ms;
    }
  }
  throw new InvalidIdempotencyOptionsError(
    `${name} must be a whole number of milliseconds or a duration such as '500ms', '90s', '15m', '24h' or '7d', ` +
      `got ${JSON.stringify(value)}`,
  );
}
