import type { Cluster, Redis } from 'ioredis';

type Writable = Redis['stream'];

/**
 * Most commands one write carries. Corking a whole tick made Redis wait while Node built every command of the
 * tick (64 calls in flight: one batch of 64, then Node idle while Redis runs 64 scripts): the two processes took
 * turns instead of overlapping, and first executions/s at 64 keys fell from about 58 000 to 46 000 on this
 * machine (docs/benchmarks.md). Smaller batches let Redis start on the first ones while Node builds the rest,
 * and still save most of the syscalls.
 */
export const COMMANDS_PER_WRITE = 8;

// Corked streams and how many commands their current batch holds; uncorked at the end of the tick at the latest.
const corked = new WeakMap<Writable, number>();

/**
 * Lets the commands the store sends in this tick leave in `writev`s of up to {@link COMMANDS_PER_WRITE} instead of
 * one `write` syscall each: corks the client's socket, sends a batch when it is full, and uncorks once the tick's
 * callbacks and microtasks have run. A lone call still goes out in the same tick, so no latency is added
 * (ioredis' `enableAutoPipelining` waits for `setImmediate` and costs more CPU per command than it saves; see
 * docs/benchmarks.md). Standalone clients only: a Cluster's node connections are left alone.
 *
 * Call it right before sending one command.
 */
export function batchWritesThisTick(client: Redis | Cluster): void {
  if (client.status !== 'ready' || !('stream' in client)) return;
  const stream = client.stream;
  if (!stream || typeof stream.cork !== 'function') return;
  const inBatch = corked.get(stream);
  if (inBatch === undefined) {
    corked.set(stream, 1);
    stream.cork();
    process.nextTick(uncork, stream);
  } else if (inBatch >= COMMANDS_PER_WRITE) {
    // Send the full batch now; this command starts the next one.
    stream.uncork();
    stream.cork();
    corked.set(stream, 1);
  } else {
    corked.set(stream, inBatch + 1);
  }
}

function uncork(stream: Writable): void {
  corked.delete(stream);
  stream.uncork();
}
