import { subscribe } from 'node:diagnostics_channel';
import { IdempotencyChannel, type IdempotencyChannelMessage } from '@retry-safe/idempotency';

/** Counts replays and logs lost leases: no option to set, the coordinator publishes whoever listens. */
export const replays = new Map<string, number>();

subscribe(IdempotencyChannel.Replayed, (message) => {
  const { operation } = message as IdempotencyChannelMessage<typeof IdempotencyChannel.Replayed>;
  replays.set(operation, (replays.get(operation) ?? 0) + 1);
});

subscribe(IdempotencyChannel.LeaseLost, (message) => {
  const { operation, keyHash, fencingToken, reason } = message as IdempotencyChannelMessage<
    typeof IdempotencyChannel.LeaseLost
  >;
  console.warn(`lease lost (${reason}) on ${operation}, key hash ${keyHash}, token ${fencingToken}`);
});
