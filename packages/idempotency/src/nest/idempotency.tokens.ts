/** DI token of the {@link IdempotencyCoordinator} (the class itself is a token too). */
export const IDEMPOTENCY_COORDINATOR = Symbol('IDEMPOTENCY_COORDINATOR');
/** DI token of the {@link IdempotencyStore} the coordinator uses. */
export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
/** DI token of the resolved {@link IdempotencyModuleOptions}. */
export const IDEMPOTENCY_MODULE_OPTIONS = Symbol('IDEMPOTENCY_MODULE_OPTIONS');
