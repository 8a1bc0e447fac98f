import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startRedis } from '@retry-safe/testing';
import { MAX_COMMANDS_PER_WRITE } from '../../src/redis/write-batching.js';
import { suiteRedis, world } from './support.js';

// What leaves the client's socket when many calls are made in one tick: batches that grow while Redis has less
// queued than Node is building, up to MAX_COMMANDS_PER_WRITE, so that Redis starts on the first commands while Node
// builds the rest (not one write per command, not one write per tick).
const redis = suiteRedis(() => startRedis());

/** The socket writes while `run` runs, as commands per write (a batch is one `_writev`, a lone command one `_write`). */
async function socketWrites(client: Redis, run: () => Promise<unknown>): Promise<number[]> {
  const stream = client.stream as unknown as {
    _write: (...args: unknown[]) => void;
    _writev?: (...args: unknown[]) => void;
  };
  const { _write: write, _writev: writev } = stream;
  const writes: number[] = [];
  stream._write = (...args) => (writes.push(1), write.apply(stream, args));
  if (writev) {
    stream._writev = (...args) => (writes.push((args[0] as unknown[]).length), writev.apply(stream, args));
  }
  try {
    await run();
  } finally {
    stream._write = write;
    if (writev) stream._writev = writev;
  }
  return writes;
}

describe('write batching', () => {
  const claim = (w: ReturnType<typeof world>, key: string) =>
    w.store.claim({
      operation: 'batching',
      key,
      owner: `owner-${key}`,
      fingerprint: '',
      leaseMs: 10_000,
      retainMs: 60_000,
    });

  it('the claims of one tick leave in batches that double while Redis has less queued, up to the maximum', async () => {
    const client = redis.client as Redis;
    const w = world(client);
    await claim(w, 'warm-up');
    const calls = 120;
    const writes = await socketWrites(client, () =>
      Promise.all(Array.from({ length: calls }, (_, i) => claim(w, `k-${i}`))),
    );
    // Nothing queued at first: the first command alone, then as many as Redis has, then the maximum.
    const max = MAX_COMMANDS_PER_WRITE;
    expect(writes).toEqual([1, 1, 2, 4, 8, 16, max, max, calls - 32 - 2 * max]);
    expect(await w.records()).toHaveLength(calls + 1);
    await w.close();
  });

  it('a lone claim leaves in the tick it was made in', async () => {
    const client = redis.client as Redis;
    const w = world(client);
    await claim(w, 'warm-up');
    const bytesWritten = () => (client.stream as unknown as { bytesWritten: number }).bytesWritten;
    let sentBeforeNextTurn = 0;
    const writes = await socketWrites(client, async () => {
      const before = bytesWritten();
      const reply = claim(w, 'lone');
      await new Promise<void>((resolve) => setImmediate(resolve));
      sentBeforeNextTurn = bytesWritten() - before;
      await reply;
    });
    expect(writes).toEqual([1]);
    expect(sentBeforeNextTurn).toBeGreaterThan(0);
    await w.close();
  });
});
