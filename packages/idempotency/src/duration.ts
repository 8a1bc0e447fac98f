import { InvalidIdempotencyOptionsError } from './errors.js';

/**
 * A length of time: a number of milliseconds, or a decimal number with a unit: `ms`, `s`, `m` (minutes), `h` or
 * `d` (days of 24 hours), e.g. `500`, `'500ms'`, `'60s'`, `'1.5m'`, `'24h'`, `'7d'`. No sign, exponent, spaces or
 * other units; it must come to a whole number of milliseconds.
 */
export type Duration = number | `${number}ms` | `${number}s` | `${number}m` | `${number}h` | `${number}d`;

const MS_PER_UNIT: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// Digits, an optional fraction, a unit; `ms` is tried before `m`, and the anchors make `5ms` never read as `5m`.
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

// A decimal fraction times its unit is not always exact in binary (1.1 * 1000 is 1100.0000000000002): anything this
// close to a whole number of milliseconds is that number.
const ROUNDING_SLACK_MS = 1e-6;

/**
 * The milliseconds `value` stands for (a number is taken as milliseconds).
 *
 * @param name - the option's name, quoted in the error (e.g. `ttl`).
 * @throws InvalidIdempotencyOptionsError naming `name` for anything else: a negative, fractional, NaN or infinite
 * number, an unknown unit, a sign, an exponent, spaces, an empty string, a value past
 * `Number.MAX_SAFE_INTEGER` milliseconds, or a value that is not a number or a string. Range checks (e.g. a TTL of
 * at least 1 s) are the caller's.
 */
export function parseDuration(value: Duration, name: string): number {
  const ms = toMilliseconds(value as unknown);
  if (ms === undefined) {
    throw new InvalidIdempotencyOptionsError(
      `${name} must be a whole number of milliseconds (>= 0) or a string such as '500ms', '60s', '15m', '24h' ` +
        `or '7d', got ${describe(value)}`,
    );
  }
  return ms;
}

function toMilliseconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (match === null) return undefined;
  const exact = Number(match[1]) * MS_PER_UNIT[match[2]!]!;
  const ms = Math.round(exact);
  if (Math.abs(exact - ms) > ROUNDING_SLACK_MS || !Number.isSafeInteger(ms)) return undefined;
  return ms;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  return value === null ? 'null' : `a ${typeof value}`;
}
