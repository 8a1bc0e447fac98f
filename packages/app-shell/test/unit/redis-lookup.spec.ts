import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { sharedLookup } from '../../src/redis-lookup.js';

type Answer = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A resolver that answers only when told to: the questions it was asked, and their pending answers. */
function heldResolver() {
  const asked: { hostname: string; answer: Answer }[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    asked.push({ hostname, answer: callback });
  };
  return { lookup, asked };
}

function ask(lookup: LookupFunction, hostname: string, family = 0) {
  return new Promise<{ error: Error | null; address: unknown }>((resolve) =>
    lookup(hostname, { family }, (error, address) => resolve({ error, address })),
  );
}

describe('sharedLookup', () => {
  it('asks the resolver once while the same question is open, and gives every caller its answer', async () => {
    const resolver = heldResolver();
    const lookup = sharedLookup(resolver.lookup);
    const answers = Promise.all([ask(lookup, 'redis'), ask(lookup, 'redis'), ask(lookup, 'redis')]);
    expect(resolver.asked.map(({ hostname }) => hostname)).toEqual(['redis']);

    resolver.asked[0]!.answer(null, '172.19.0.2', 4);
    expect(await answers).toEqual([
      { error: null, address: '172.19.0.2' },
      { error: null, address: '172.19.0.2' },
      { error: null, address: '172.19.0.2' },
    ]);
  });

  it("gives every waiting caller the resolver's failure", async () => {
    const resolver = heldResolver();
    const lookup = sharedLookup(resolver.lookup);
    const answers = Promise.all([ask(lookup, 'redis'), ask(lookup, 'redis')]);
    const failure = Object.assign(new Error('getaddrinfo EAI_AGAIN redis'), { code: 'EAI_AGAIN' });
    resolver.asked[0]!.answer(failure, '');
    expect((await answers).map(({ error }) => error)).toEqual([failure, failure]);
  });

  it('keeps nothing: the next question after an answer asks again (a restarted server may have moved)', async () => {
    const resolver = heldResolver();
    const lookup = sharedLookup(resolver.lookup);
    const first = ask(lookup, 'redis');
    resolver.asked[0]!.answer(null, '172.19.0.2', 4);
    await first;
    const second = ask(lookup, 'redis');
    expect(resolver.asked).toHaveLength(2);
    resolver.asked[1]!.answer(null, '172.19.0.9', 4);
    expect((await second).address).toBe('172.19.0.9');
  });

  it('asks separately for other names and other address families', () => {
    const resolver = heldResolver();
    const lookup = sharedLookup(resolver.lookup);
    void ask(lookup, 'redis');
    void ask(lookup, 'redis', 6);
    void ask(lookup, 'postgres');
    void ask(lookup, 'redis');
    expect(resolver.asked.map(({ hostname }) => hostname)).toEqual(['redis', 'redis', 'postgres']);
  });
});
