export { MemoryIdempotencyStore } from './memory-store.js';
