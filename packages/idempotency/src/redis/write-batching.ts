import type { Cluster, Redis } from 'ioredis';

type Writable = Redis['stream'];

/** Most commands one write carries, so that a long tick still feeds Redis while Node builds the rest. */
export const MAX_COMMANDS_PER_WRITE = 32;

// Corked streams and how many commands their current batch holds; uncorked at the end of the tick at the latest.
const batches = new WeakMap<Writable, number>();

/**
 * Lets the commands the store sends in one tick leave in a few `writev`s instead of one `write` syscall each,
 * without making Redis wait for the whole tick. Call it right before sending one command.
 *
 * The batch being built is sent as soon as it is as large as what Redis already has to work on (commands sent
 * and not yet answered), or {@link MAX_COMMANDS_PER_WRITE}, and at the end of the tick at the latest. So batches
 * grow 1, 1, 2, 4, ... while Redis is idle: it always has about as much work queued as Node is building and the
 * two overlap, while a busy Redis gets few, large writes. Corking the whole tick (one write of all its commands)
 * made them take turns instead: with 64 calls in flight Redis waited while Node built 64 commands, then Node
 * waited while Redis ran 64 scripts, and first executions/s at 64 keys fell from about 58 000 to 46 000
 * (docs/benchmarks.md). A lone call still goes out in the same tick, so no latency is added (ioredis'
 * `enableAutoPipelining` waits for `setImmediate` and costs more CPU per command than it saves). Standalone
 * clients only: a Cluster's node connections are left alone.
 */
export function batchWritesThisTick(client: Redis | Cluster): void {
  if (client.status !== 'ready' || !('stream' in client)) return;
  const stream = client.stream;
  if (!stream || typeof stream.cork !== 'function') return;
  const inBatch = batches.get(stream);
  if (inBatch === undefined) {
    batches.set(stream, 1);
    stream.cork();
    process.nextTick(uncork, stream);
    return;
  }
  // ioredis queues a command when it writes it (corked or not) and dequeues it with its reply.
  const queuedAtRedis = client.commandQueue.length - inBatch;
  if (inBatch >= MAX_COMMANDS_PER_WRITE || inBatch >= Math.max(1, queuedAtRedis)) {
    // Send the batch now; this command starts the next one.
    stream.uncork();
    stream.cork();
    batches.set(stream, 1);
  } else {
    batches.set(stream, inBatch + 1);
  }
}

function uncork(stream: Writable): void {
  batches.delete(stream);
  stream.uncork();
}
