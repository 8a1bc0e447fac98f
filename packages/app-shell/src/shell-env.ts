import { z } from 'zod';
import { deploymentProblems } from './deployment-checks.js';
import {
  ConfigError,
  envInt,
  parseEnv,
  shellConfigOf,
  type ListenConfig,
  type ParseEnvOptions,
} from './env.js';

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

/** Options of {@link configLoader}. @typeParam P - the name of the app's port variable. */
export interface ConfigLoaderOptions<P extends string> extends ParseEnvOptions {
  /** The app's port variable (`ORDERS_PORT`), read into {@link ListenConfig.port}. */
  readonly portVariable: P;
}

/** Reads and validates an app's environment into its config `C`. */
export type ConfigLoader<C> = (env: Record<string, string | undefined>) => C;

/**
 * An app's config loader: validates the environment against `schema` (which spreads {@link shellEnv} and has the
 * port variable), once, by `main.ts` (tests pass their own record); the config is the port, the
 * {@link ShellConfig}, and what `read` makes of the app's own variables.
 * Then the rules between variables ({@link deploymentProblems}): with `NODE_ENV=production` no `FAULTS_ENABLED`,
 * and (unless `RETRY_SAFE_DEMO=1`) no published demo secret, no missing one; no `/__*` route off loopback without
 * `ADMIN_TOKEN`; `ADMIN_PORT` not the app's port.
 * @returns a loader that throws {@link ConfigError} listing every invalid variable with the value it got (the
 * secrets' values excepted).
 */
export function configLoader<A extends object, P extends string, S extends z.ZodType<ShellEnvOutput<P>>>(
  schema: S,
  options: ConfigLoaderOptions<P>,
  read: (e: z.output<S>) => A,
): ConfigLoader<ListenConfig & A> {
  const secrets = new Set([...(options.secrets ?? []), 'ADMIN_TOKEN']);
  return (env) => {
    const e = parseEnv(schema, env, { ...options, secrets });
    const shell = shellConfigOf(e);
    const problems = deploymentProblems({
      env,
      parsed: e as Record<string, unknown>,
      host: shell.host,
      port: { variable: options.portVariable, value: e[options.portVariable] },
      adminListener: shell.adminListener,
      metricsPort: shell.metricsListener?.port,
      faultsEnabled: shell.faultsEnabled,
      adminToken: shell.adminToken,
      serverLimits: shell.serverLimits,
    });
    if (problems.length > 0) {
      const lines = problems.map(([name, message]) => `  ${name}: ${message}`);
      throw new ConfigError(`${options.service}: invalid environment\n${lines.join('\n')}`);
    }
    return { port: e[options.portVariable], ...shell, ...read(e) };
  };
}

/** What a schema with {@link shellEnv}'s variables and the port variable `P` gives. */
type ShellEnvOutput<P extends string> = Parameters<typeof shellConfigOf>[0] & { readonly [K in P]: number };
