import type { Cluster, Redis } from 'ioredis';

type Writable = Redis['stream'];

// Streams corked until the end of the current tick.
const corked = new WeakSet<Writable>();

/**
 * Lets every command the store sends in this tick leave in one `writev` instead of one `write` syscall each: corks
 * the client's socket and uncorks it once the tick's callbacks and microtasks have run. With 256 calls in flight
 * that took Node's CPU per replay from 8.8 to 6.9 µs; a lone call still goes out in the same tick, so no latency
 * is added (ioredis' `enableAutoPipelining` waits for `setImmediate` and costs more CPU per command than it saves;
 * see docs/benchmarks.md). Standalone clients only: a Cluster's node connections are left alone.
 */
export function batchWritesThisTick(client: Redis | Cluster): void {
  if (client.status !== 'ready' || !('stream' in client)) return;
  const stream = client.stream;
  if (!stream || corked.has(stream) || typeof stream.cork !== 'function') return;
  corked.add(stream);
  stream.cork();
  process.nextTick(uncork, stream);
}

function uncork(stream: Writable): void {
  corked.delete(stream);
  stream.uncork();
}
