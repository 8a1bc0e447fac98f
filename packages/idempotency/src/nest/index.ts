export {
  IdempotencyModule,
  type IdempotencyModuleAsyncOptions,
  type IdempotencyModuleOptions,
} from './idempotency.module.js';
export {
  IDEMPOTENCY_COORDINATOR,
  IDEMPOTENCY_MODULE_OPTIONS,
  IDEMPOTENCY_STORE,
} from './idempotency.tokens.js';
export {
  problemForIdempotencyError,
  type IdempotencyProblem,
  type IdempotencyProblemOverrides,
} from './problem.js';
