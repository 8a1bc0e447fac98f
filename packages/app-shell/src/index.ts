// The public API of @retry-safe/app-shell: what every app here is made of besides its features (config loading,
// the problem filter, request context and logs, metrics, health, scenario routes, shutdown order). provider-sim
// uses it too: it is infrastructure, with no business contract in it.
export { AppShellModule, LOGGING_OPTIONS, SHELL_PATHS } from './shell/app-shell.module.js';
export { shellAppModule, type AppDeclaration } from './shell/shell-app-module.js';
export { DEFAULT_BODY_LIMIT_BYTES, type AppShellOptions } from './shell/app-shell.options.js';
export { SHELL_APP_OPTIONS, bootstrap, shutdown, type BootstrapOptions } from './shell/bootstrap.js';
export { drainServer, type DrainResult } from './shell/drain.js';
export { isTracing, type TraceExportConfig } from './otel/trace-export.js';
export { ShutdownState } from './health/shutdown-state.js';
export {
  ADMIN_TOKEN,
  CALLER_AUTHENTICATOR,
  isAdminPath,
  CallerAuthenticationMiddleware,
  InternalTokenAuthenticator,
  bearerTokenOf,
  internalAuthorization,
  isOpenPath,
  secretDigest,
  type CallerAuthenticator,
} from './auth/caller-authentication.js';
export {
  ConfigError,
  clusterPrefixProblem,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_TRACE_BATCH_DELAY_MS,
  MAX_DRAIN_TIMEOUT_MS,
  MIN_INTERNAL_TOKEN_LENGTH,
  envBool,
  envAdminToken,
  envBullmqPrefix,
  envHost,
  envInternalToken,
  envLogLevel,
  envHttpUrl,
  envHttpUrls,
  envInt,
  envPort,
  envRedisNodes,
  envPostgresUrl,
  envRedisUrl,
  hasHashTag,
  parseEnv,
  redactCredentials,
  shellConfigOf,
  shellEnv,
  type ListenConfig,
  type ShellConfig,
  type ParseEnvOptions,
} from './env.js';
export {
  configLoader,
  envBodyLimitBytes,
  envRequestBudgetMs,
  inboundConfigOf,
  inboundEnv,
  upstreamConfigOf,
  upstreamEnv,
  type ConfigLoader,
  type ConfigLoaderOptions,
  type InboundConfig,
  type UpstreamConfig,
} from './shell-env.js';
export {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  ServiceError,
  ServiceErrorCode,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
  errorGuard,
  isServiceError,
} from './errors.js';
export {
  IdempotencyKey,
  createIdempotencyKeyDecorator,
  type IdempotencyKeyDecoratorOptions,
} from './idempotency-key.decorator.js';
export { HttpMetrics, type Counter, type Gauge, type Histogram } from './metrics.js';
export { MetricsController, MetricsModule } from './metrics.module.js';
export { MetricsListener, type MetricsListenerOptions } from './metrics-listener.js';
export { AdminListener, arrivedOnAdminListener, type AdminListenerOptions } from './admin/admin-listener.js';
export {
  ProblemExceptionFilter,
  describeError,
  downstreamProblemMapper,
  type ProblemCodeMap,
  type ProblemCodeMapping,
  type ProblemExceptionFilterOptions,
  type ProblemMapper,
  type ProblemMapperContext,
  type ProblemReply,
} from './problem-exception.filter.js';
export { statusTitle } from './problem.js';
export {
  HealthController,
  READINESS_CHECKS,
  whenReady,
  type HealthReport,
  type ReadinessCheck,
} from './health/health.controller.js';
export { answersWithin } from './health/answers-within.js';
export {
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  REDIS_CLIENT,
  RedisModule,
  createRedisClient,
  envRedisCommandTimeoutMs,
  createRedisConnection,
  pingRedis,
  type RedisLocation,
  type RedisModuleOptions,
} from './redis.js';
export { SHARED_LOOKUP_REDIS_OPTIONS, SharedLookupConnector, sharedLookup } from './redis-lookup.js';
export { headerLinesOf } from './header-lines.js';
export { relay } from './relay.js';
export { currentLogFields, withLogContext, type LogFields } from './logging/log-context.js';
export {
  LOG_LEVELS,
  REDACTED,
  REDACTED_PATHS,
  createNestLogger,
  createShellLogger,
  type LogLevel,
  type ShellLoggerOptions,
} from './logging/shell-logger.js';
export {
  Chain,
  REQUEST_CONTEXT_OPTIONS,
  RequestContextMiddleware,
  chainContextOf,
  requestContextOf,
  requestIdOf,
  type ChainContext,
  type RequestContext,
  type RequestContextOptions,
} from './request-context.js';
export {
  Journal,
  RequestJournal,
  RequestJournalController,
  SCENARIO_JOURNAL,
  preciseNow,
  type JournalEntry,
  type RequestJournalOptions,
} from './admin/request-journal.js';
export {
  RuntimeSettings,
  type RuntimeSettingsDefinition,
  type SettingsSnapshot,
} from './admin/runtime-settings.js';
export { RuntimeSettingsController } from './admin/runtime-settings.controller.js';
export { createValidationPipe } from './validation.pipe.js';
export {
  JSON_BODY_OPTIONS,
  JsonBodyMiddleware,
  JsonContentTypeGuard,
  type JsonBodyOptions,
} from './json-body.js';
export {
  DEFAULT_SERVER_LIMITS,
  applyServerLimits,
  serverLimitsProblem,
  type ServerLimits,
} from './server-limits.js';
export {
  deploymentProblems,
  isDemo,
  isLoopback,
  isProduction,
  type DeploymentView,
} from './deployment-checks.js';
