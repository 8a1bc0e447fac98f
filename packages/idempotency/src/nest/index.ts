export { IdempotencyModule } from './idempotency.module.js';
export {
  IDEMPOTENCY_MODULE_OPTIONS,
  type IdempotencyModuleAsyncOptions,
  type IdempotencyModuleRegisterOptions,
} from './idempotency.module-definition.js';
export type {
  IdempotencyModuleExtras,
  IdempotencyModuleOptions,
  IdempotencyOptionsFactory,
} from './interfaces/idempotency-module-options.interface.js';
export { IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE } from './idempotency.tokens.js';
export {
  problemForIdempotencyError,
  type IdempotencyProblem,
  type IdempotencyProblemOverrides,
} from './problem.js';
export { Idempotent } from './idempotent.decorator.js';
export type { IdempotentRequest, IdempotentRouteOptions } from './idempotent.options.js';
export {
  IDEMPOTENT_REPLAYED_HEADER,
  IDEMPOTENT_ROUTE,
  IdempotencyInterceptor,
} from './idempotency.interceptor.js';
export { IdempotencyProblemFilter } from './idempotency-problem.filter.js';
