import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { jsonCodec, schemaCodec, voidCodec } from '../../src/index.js';

describe('codecs', () => {
  it('jsonCodec round-trips JSON values', () => {
    const codec = jsonCodec<{ id: string; amount: number }>();
    expect(codec.decode(codec.encode({ id: 'ch_1', amount: 5 }))).toEqual({ id: 'ch_1', amount: 5 });
  });

  it('jsonCodec refuses a value with no JSON encoding', () => {
    expect(() => jsonCodec<undefined>().encode(undefined)).toThrow(TypeError);
  });

  it('schemaCodec validates on decode', () => {
    const codec = schemaCodec(z.object({ id: z.string(), amount: z.number().int() }));
    expect(codec.decode('{"id":"ch_1","amount":5}')).toEqual({ id: 'ch_1', amount: 5 });
    expect(() => codec.decode('{"id":"ch_1","amount":"5"}')).toThrow();
  });

  it('voidCodec stores nothing and refuses anything else', () => {
    expect(voidCodec.encode(undefined)).toBe('');
    expect(voidCodec.decode('')).toBeUndefined();
    expect(() => voidCodec.decode('{}')).toThrow(TypeError);
  });
});
