import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { startRedis } from '@retry-safe/testing';
import { scripts } from '../../src/redis/scripts.js';
import { suiteRedis, world } from './support.js';

// Every script reads a record through the one parser in scripts/includes/read-record.lua. This suite writes each
// record shape and runs every script on it: a shape one script cannot read, every script refuses; a shape one
// script reads as "pending, owned by A, fence 7", every script reads the same way.
const redis = suiteRedis(() => startRedis());

const scriptDir = new URL('../../src/redis/scripts/', import.meta.url);
const scriptFiles = readdirSync(scriptDir).filter((f) => f.endsWith('.lua'));

describe('script sources', () => {
  it.each(scriptFiles)('%s has a KEYS/ARGV/result header and parses no record itself', (file) => {
    const text = readFileSync(new URL(file, scriptDir), 'utf8');
    expect(file).toMatch(/^[a-z-]+-\d+\.lua$/);
    const header = /^--\[\[([\s\S]*?)\]\]/.exec(text)?.[1] ?? '';
    expect(header).toContain('KEYS[1]');
    expect(header).toContain('ARGV[1]');
    expect(header).toMatch(/Returns/);
    expect(text).not.toMatch(/string\.match/);
  });

  it('inlines the shared parser into every script that reads a record, once', () => {
    for (const script of [scripts.claim, scripts.complete, scripts.renew, scripts.release]) {
      expect(script.source.match(/local function readRecord/g)).toHaveLength(1);
      expect(script.source).not.toMatch(/^--- @include/m);
    }
  });
});

const OWNER = 'owner-a';
const fresh = () => Date.now() + 60_000;

/** Record shapes, written raw, with what every script must read in them (`undefined`: unreadable). */
type Reading = { state: 'p' | 'c' | 'r'; claim: string } | undefined;
const shapes: [string, (key: string) => Promise<unknown>, Reading][] = [
  [
    'pending, lease live',
    (k) => redis.client.set(k, `1|p|7|${fresh()}|${OWNER}|4|fp-a`, 'PX', 60_000),
    { state: 'p', claim: 'in_progress' },
  ],
  [
    'pending, lease over',
    (k) => redis.client.set(k, `1|p|7|1|${OWNER}|4|fp-a`, 'PX', 60_000),
    { state: 'p', claim: 'acquired' },
  ],
  [
    'completed',
    (k) => redis.client.set(k, '1|c|7|||4|fp-a{"id":1}', 'PX', 60_000),
    { state: 'c', claim: 'completed' },
  ],
  ['released', (k) => redis.client.set(k, '1|r|7|||0|', 'PX', 60_000), { state: 'r', claim: 'acquired' }],
  [
    'completed without a stored result',
    (k) => redis.client.set(k, '1|e|7||owner-z|4|fp-a', 'PX', 60_000),
    { state: 'c', claim: 'completed' },
  ],
  ['a hash', (k) => redis.client.hset(k, { v: '1' }), undefined],
  ['a fingerprint past the end', (k) => redis.client.set(k, `1|p|7|${fresh()}|${OWNER}|99|fp-a`), undefined],
  [
    'a fencing token beyond 2^53',
    (k) => redis.client.set(k, `1|p|100000000000000000000|${fresh()}|${OWNER}|4|fp-a`),
    undefined,
  ],
  ['an unreadable header', (k) => redis.client.set(k, 'garbage'), undefined],
  ['an unknown version', (k) => redis.client.set(k, `99|p|7|${fresh()}|${OWNER}|4|fp-a`), undefined],
  ['an unknown state', (k) => redis.client.set(k, `1|x|7|${fresh()}|${OWNER}|4|fp-a`), undefined],
];

describe.each(shapes)('a record that is %s', (_, write, reading) => {
  it('is read alike by claim, complete, renew and release', async () => {
    const w = world(redis.client);
    const id = { operation: 'scripts.shape', key: 'k' };
    const key = w.store.recordKey(id);
    const dump = async () =>
      (await redis.client.type(key)) === 'string' ? redis.client.get(key) : redis.client.hgetall(key);
    /** Writes the shape afresh, runs one script on it, and reports its answer and the record afterwards. */
    const run = async <T>(step: () => Promise<T>) => {
      await redis.client.del(key);
      await write(key);
      const before = JSON.stringify(await dump());
      const result = await step();
      const after = await dump();
      return { result, after, changed: JSON.stringify(after) !== before };
    };
    const claim = await run(() =>
      w.store.claim({ ...id, owner: 'owner-b', fingerprint: 'fp-a', leaseMs: 1_000, retainMs: 60_000 }),
    );
    const writes = [
      await run(() => w.store.complete({ ...id, owner: OWNER, payload: '{}', ttlMs: 60_000 })),
      await run(() => w.store.renew({ ...id, owner: OWNER, leaseMs: 1_000 })),
      await run(() => w.store.release({ ...id, owner: OWNER })),
    ];
    await redis.client.del(key);
    await w.close();

    if (!reading) {
      expect(claim.result).toMatchObject({ status: 'corrupt' });
      for (const step of [claim, ...writes]) expect(step.changed).toBe(false);
      for (const step of writes) expect(step.result).toBe(false);
      return;
    }
    expect(claim.result.status).toBe(reading.claim);
    // The owner's writes succeed exactly on its pending record, and keep its fencing token.
    for (const step of writes) {
      expect(step.result).toBe(reading.state === 'p');
      if (reading.state === 'p') expect(String(step.after)).toMatch(/^1\|[pcr]\|7\|/);
      else expect(step.changed).toBe(false);
    }
    if (claim.result.status === 'completed') {
      expect(claim.result).toEqual({
        status: 'completed',
        payload: String(claim.after).startsWith('1|e|') ? null : '{"id":1}',
        fencingToken: 7,
      });
    }
    if (claim.result.status === 'acquired') {
      expect(claim.result.fencingToken).toBeGreaterThan(7);
      expect(claim.after).toMatch(
        new RegExp(`^1\\|p\\|${claim.result.fencingToken}\\|\\d+\\|owner-b\\|4\\|fp-a$`),
      );
    }
  });
});
