/** DI token of the {@link IdempotencyCoordinator} (the class itself is a token too). */
export const IDEMPOTENCY_COORDINATOR = Symbol('IDEMPOTENCY_COORDINATOR');
/** DI token of the {@link IdempotencyStore} the coordinator uses. */
export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
