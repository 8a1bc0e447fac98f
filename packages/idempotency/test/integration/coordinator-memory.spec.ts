import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { describeIdempotentFunction } from './idempotent-function.behaviour.js';
import { storeWorld, type BehaviourBackend } from './support.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

// The same suite on the in-memory store users run their unit tests on: it keeps the Redis store's contract.
function memoryBackend(): BehaviourBackend {
  let store = new MemoryIdempotencyStore();
  return {
    world: () => {
      store = new MemoryIdempotencyStore();
      const shared = store;
      return storeWorld(shared, () => shared, {
        records: async () => shared.entries().map((e) => e.id),
        removeRecord: async (operation, key) => shared.delete({ operation, key }),
        remainingTtlMs: async (operation, key) =>
          shared.entries().find((e) => e.id === `${operation}:${key}`)?.remainingMs ?? -2,
      });
    },
    corruptions: [
      [
        'a result the codec cannot decode',
        async (operation, key) =>
          void (await store.storeIfAbsent({
            operation,
            key,
            fingerprint: 'fp-a',
            payload: '{not json',
            ttlMs: 60_000,
          })),
      ],
    ],
  };
}

const backend = memoryBackend();
describeCoordinatorBehaviour('the in-memory store', backend);
describeCoordinatorHardening('the in-memory store', backend);
describeIdempotentFunction('the in-memory store', backend);
