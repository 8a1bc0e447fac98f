// `@retry-safe/app-shell/config`: an app's environment, read once at start-up. The generic variable rules, the Redis
// and token rules, the shell's own variables, a hop's, the `IDEMPOTENCY_*` settings, and the loader that checks the
// rules between them. Only what apps import is exported.
export { configLoader, type ConfigLoader, type ConfigLoaderOptions } from './config-loader.js';
export { isLoopback } from './deployment-checks.js';
export {
  ConfigError,
  envBool,
  envHttpUrl,
  envHttpUrls,
  envInt,
  envOneOf,
  envPort,
  envPostgresUrl,
  type ParseEnvOptions,
} from './env-validation.js';
export {
  envBodyLimitBytes,
  envRequestBudgetMs,
  inboundConfigOf,
  inboundEnv,
  upstreamConfigOf,
  upstreamEnv,
  type InboundConfig,
  type UpstreamConfig,
} from './hop-env.js';
export {
  IDEMPOTENCY_VARIABLES,
  MAX_SERVICE_LEASE_MS,
  idempotencyEnv,
  type IdempotencyEnv,
  type IdempotencyEnvOptions,
  type IdempotencyEnvPiece,
  type IdempotencyOverrides,
  type IdempotencySetting,
  type IdempotencySettings,
} from './idempotency-env.js';
export {
  clusterPrefixProblem,
  envBullmqPrefix,
  envKeyPrefix,
  envRedisCommandTimeoutMs,
  envRedisNodes,
  envRedisUrl,
} from './redis-env.js';
export { shellEnv, type ListenConfig, type ShellConfig } from './shell-env.js';
export { envInternalToken } from './token-env.js';
