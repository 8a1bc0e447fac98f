/** Defaults of {@link PostgresIdempotencyStoreOptions}, in one place (apps' env defaults quote these). */
export const POSTGRES_STORE_DEFAULTS = {
  table: 'idempotency_records',
  commandTimeoutMs: 1_000,
  sweepIntervalMs: 60_000,
  sweepBatchSize: 1_000,
} as const;

/** Ranges {@link PostgresIdempotencyStoreOptions} accept (apps derive their env ranges from them). */
export const POSTGRES_STORE_LIMITS = {
  commandTimeoutMs: { min: 1, max: 60_000 },
  sweepIntervalMs: { min: 0, max: 24 * 60 * 60 * 1_000 },
  sweepBatchSize: { min: 1, max: 100_000 },
} as const;
