import { z } from 'zod';
import { envInt } from './env-validation.js';

// The variables of a service's Redis: where it is (one server or a Cluster), how long a command may take, and the
// rules of the key prefixes a Cluster puts in slots.

/** A `redis://` or `rediss://` URL variable. */
export function envRedisUrl() {
  return z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });
}

/** A comma-separated list of `redis://` or `rediss://` URLs (Redis Cluster nodes), empty when unset. */
export function envRedisNodes() {
  return z
    .string()
    .optional()
    .transform((list) =>
      (list ?? '')
        .split(',')
        .map((node) => node.trim())
        .filter((node) => node !== ''),
    )
    .pipe(z.array(envRedisUrl()));
}

/** `REDIS_COMMAND_TIMEOUT_MS` by default: how long one Redis command may go unanswered before it fails. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * The `REDIS_COMMAND_TIMEOUT_MS` variable (50 ms to 1 min, default {@link DEFAULT_REDIS_COMMAND_TIMEOUT_MS}): the
 * ioredis `commandTimeout` of every client a service makes. A paused or partitioned Redis keeps its TCP connection
 * open, so without it a command (and whatever awaits it: a relay round, a shutdown's QUIT) waits for ever.
 */
export function envRedisCommandTimeoutMs() {
  return envInt(50, 60_000).default(DEFAULT_REDIS_COMMAND_TIMEOUT_MS);
}

/**
 * A prefix of Redis keys (`IDEMPOTENCY_KEY_PREFIX`, a rate limiter's): 1-`maxLength` characters of
 * `[A-Za-z0-9_.:{}-]`, so a `{hash tag}` fits and nothing needs quoting in `redis-cli`.
 */
export function envKeyPrefix(maxLength = 64) {
  return z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9_.:{}-]{1,${maxLength}}$`),
      `must be 1-${maxLength} characters of [A-Za-z0-9_.:{}-]`,
    );
}

// On Redis Cluster only the part between the first `{` and the next `}` is hashed: a prefix carrying one puts every
// key under it in one slot, as the multi-key scripts of a BullMQ queue need.
const HASH_TAG = /\{[^{}]+\}/;

/** True when `prefix` carries a Redis Cluster hash tag (`{invoices}`). */
export function hasHashTag(prefix: string): boolean {
  return HASH_TAG.test(prefix);
}

/** A BullMQ key prefix: 1-`maxLength` letters, digits, `_ . -`, and at most one `{hash tag}`. */
export function envBullmqPrefix(maxLength: number) {
  return z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9_.{}-]{1,${maxLength}}$`),
      `must be 1-${maxLength} letters, digits, _ . - or a {hash tag}`,
    )
    .refine(
      (prefix) => !/[{}]/.test(prefix.replace(HASH_TAG, '')),
      'braces must enclose one non-empty hash tag',
    );
}

/** The message for a Cluster without a hash tag in the queue prefix, or `undefined` when the pair is valid. */
export function clusterPrefixProblem(clusterNodes: readonly string[], prefix: string): string | undefined {
  return clusterNodes.length > 0 && !hasHashTag(prefix)
    ? 'must contain a {hash tag} (e.g. {invoices}) when REDIS_CLUSTER_NODES is set'
    : undefined;
}
