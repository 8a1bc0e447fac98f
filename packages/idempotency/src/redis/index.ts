export { REDIS_STORE_DEFAULTS, REDIS_STORE_LIMITS } from './defaults.js';
export {
  RECORD_FORMAT_VERSION,
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
} from './redis-store.js';
export type { DurabilityOptions } from './durability.js';
