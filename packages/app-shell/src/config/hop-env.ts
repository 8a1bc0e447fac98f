import { envInt } from './env-validation.js';

// The variables of a hop of the chain: what it accepts from its caller (inbound) and how it calls the next (upstream).

/** A request budget variable in ms (100 ms to 2 min, default 10 s): how long a whole request may take. */
export function envRequestBudgetMs() {
  return envInt(100, 120_000).default(10_000);
}

/** A body size limit variable in bytes (256 B to 1 MiB, default 16 KiB). */
export function envBodyLimitBytes() {
  return envInt(256, 1_048_576).default(16_384);
}

/**
 * The variables of a service called by another hop of the chain: `REQUEST_BUDGET_MS` (the deadline of a call that
 * arrives without `x-request-deadline`) and `BODY_LIMIT_BYTES`. Read them back with {@link inboundConfigOf}.
 */
export function inboundEnv() {
  return { REQUEST_BUDGET_MS: envRequestBudgetMs(), BODY_LIMIT_BYTES: envBodyLimitBytes() };
}

/** What {@link inboundEnv} reads. */
export interface InboundConfig {
  /** `REQUEST_BUDGET_MS` (default 10000): the deadline of a call that arrives without `x-request-deadline`. */
  readonly requestBudgetMs: number;
  /** `BODY_LIMIT_BYTES` (default 16384): larger bodies get 413. */
  readonly bodyLimitBytes: number;
}

/** The {@link InboundConfig} of an environment parsed with {@link inboundEnv}'s variables. */
export function inboundConfigOf(e: {
  readonly REQUEST_BUDGET_MS: number;
  readonly BODY_LIMIT_BYTES: number;
}): InboundConfig {
  return { requestBudgetMs: e.REQUEST_BUDGET_MS, bodyLimitBytes: e.BODY_LIMIT_BYTES };
}

/**
 * The variables of a service's calls to the next hop: `UPSTREAM_RETRIES` (0-10, default 3) and
 * `UPSTREAM_ATTEMPT_TIMEOUT_MS` (10 ms to 2 min, default 5 s). Read them back with {@link upstreamConfigOf}.
 */
export function upstreamEnv() {
  return {
    UPSTREAM_RETRIES: envInt(0, 10).default(3),
    UPSTREAM_ATTEMPT_TIMEOUT_MS: envInt(10, 120_000).default(5_000),
  };
}

/** What {@link upstreamEnv} reads: the retries and per-attempt timeout of the calls to the next hop. */
export interface UpstreamConfig {
  readonly retries: number;
  readonly attemptTimeoutMs: number;
}

/** The {@link UpstreamConfig} of an environment parsed with {@link upstreamEnv}'s variables. */
export function upstreamConfigOf(e: {
  readonly UPSTREAM_RETRIES: number;
  readonly UPSTREAM_ATTEMPT_TIMEOUT_MS: number;
}): UpstreamConfig {
  return { retries: e.UPSTREAM_RETRIES, attemptTimeoutMs: e.UPSTREAM_ATTEMPT_TIMEOUT_MS };
}
