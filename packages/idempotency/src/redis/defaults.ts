/** Defaults of {@link RedisIdempotencyStoreOptions}, in one place (apps' env defaults quote these). */
export const REDIS_STORE_DEFAULTS = {
  keyPrefix: 'idem:',
  commandTimeoutMs: 1_000,
} as const;

/** Ranges {@link RedisIdempotencyStoreOptions} accept (apps derive their env ranges from them). */
export const REDIS_STORE_LIMITS = {
  commandTimeoutMs: { min: 1, max: 60_000 },
} as const;
