import { describe, expect, it } from '@jest/globals';
import { claimResultOf, flagOf } from '../../src/store-replies.js';

describe('script replies', () => {
  it.each([
    [[1, 3], { status: 'acquired', fencingToken: 3 }],
    [[2, '{"a":1}', 4], { status: 'completed', payload: '{"a":1}', fencingToken: 4 }],
    [[3, 1234], { status: 'in_progress', retryAfterMs: 1234 }],
    [[4, 'fp', 'pending'], { status: 'mismatch', storedFingerprint: 'fp', state: 'pending' }],
    [[4, 'fp', 'completed'], { status: 'mismatch', storedFingerprint: 'fp', state: 'completed' }],
    [[5, 'bad'], { status: 'corrupt', reason: 'bad' }],
    [[6, 9], { status: 'completed', payload: null, fencingToken: 9 }],
  ])('claim reply %j', (reply, result) => {
    expect(claimResultOf(reply)).toEqual(result);
  });

  it.each([[[9]], ['OK'], [null]])('refuses an unknown claim reply %j', (reply) => {
    expect(() => claimResultOf(reply)).toThrow('unexpected reply');
  });

  it('maps flags and refuses anything else', () => {
    expect(flagOf(1)).toBe(true);
    expect(flagOf(0)).toBe(false);
    expect(() => flagOf('1')).toThrow('unexpected reply');
  });
});
