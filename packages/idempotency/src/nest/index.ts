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
export type {
  IdempotentGraphqlCall,
  IdempotentMessage,
  IdempotentOptions,
  IdempotentRequest,
  KeyFrom,
  StoreIf,
} from './interfaces/idempotent-options.interface.js';
export { IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE } from './idempotency.tokens.js';
export {
  problemForIdempotencyError,
  type IdempotencyProblem,
  type IdempotencyProblemOverrides,
} from './problem.js';
export { Idempotent } from './idempotent.decorator.js';
export { IdempotencyInterceptor } from './idempotency.interceptor.js';
export { IDEMPOTENT_REPLAYED_HEADER } from './http-exchange.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyFromHeader,
  type KeyFromHeaderOptions,
} from './idempotency-exchange.js';
export { IDEMPOTENT_OPTIONS, IdempotentRoutes } from './idempotent-routes.js';
export {
  IDEMPOTENT_ROUTE_DEFAULTS,
  IdempotentRouteError,
  SECRET_HEADERS,
  type IdempotentRoute,
} from './idempotent-route.js';
export { IdempotencyProblemFilter, type IdempotencyErrorPayload } from './idempotency-problem.filter.js';
export {
  IDEMPOTENCY_CONTEXT_ARG,
  IDEMPOTENT_METHOD,
  IdempotencyContextArg,
  IdempotentMethod,
} from './idempotent-method.decorator.js';
export { IdempotentMethods, outcomeOf } from './idempotent-methods.js';
export type {
  IdempotentMethodOptions,
  IdempotentSettingsProvider,
  StatementContext,
} from './interfaces/idempotent-method-options.interface.js';
// The coordinator the module provides, for providers that inject it, from the same entry as the module.
export { IdempotencyCoordinator } from '../coordinator.js';
export type { Duration } from '../duration.js';
