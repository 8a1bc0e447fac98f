export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './memory-store.js';
