/** DI token of the ioredis client the idempotency store and `/health` use (BullMQ opens its own connections). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
