// The public API of @retry-safe/app-shell: the HTTP infrastructure gateway, orders and payments share
// (provider-sim stands for an external system and keeps its own copies on purpose).
export {
  ConfigError,
  envBool,
  envHttpUrl,
  envInt,
  envPort,
  envRedisUrl,
  parseEnv,
  type ParseEnvOptions,
} from './env.js';
export {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  ServiceError,
  ServiceErrorCode,
  UnsupportedMediaTypeError,
  ValidationFailedError,
  errorGuard,
  isServiceError,
} from './errors.js';
export {
  IdempotencyKey,
  IdempotencyKeyRejection,
  createIdempotencyKeyDecorator,
  parseIdempotencyKeyHeader,
  parseSfString,
  serializeSfString,
  type IdempotencyKeyDecoratorOptions,
  type IdempotencyKeyParse,
} from './idempotency-key.js';
export { HttpMetrics, MetricsController, MetricsModule } from './metrics.js';
export {
  ProblemExceptionFilter,
  describeError,
  downstreamProblemMapper,
  type ProblemExceptionFilterOptions,
  type ProblemMapper,
  type ProblemMapperContext,
  type ProblemReply,
} from './problem-exception.filter.js';
export {
  PROBLEM_CONTENT_TYPE,
  isProblem,
  problem,
  problemType,
  statusTitle,
  type Problem,
} from './problem.js';
export {
  REDIS_CLIENT,
  RedisHealthController,
  RedisHealthModule,
  RedisModule,
  createRedisClient,
  type HealthReport,
  type RedisModuleOptions,
} from './redis.js';
export { relay } from './relay.js';
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
  RequestJournal,
  RequestJournalController,
  preciseNow,
  type JournalEntry,
  type RequestJournalOptions,
} from './request-journal.js';
export { createValidationPipe } from './validation.pipe.js';
export {
  JSON_BODY_OPTIONS,
  JsonBodyMiddleware,
  JsonContentTypeGuard,
  type JsonBodyOptions,
} from './json-body.js';
export { captureProblem, type SentProblem } from './capture-problem.js';
