import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ProviderErrorCode } from '../../src/common/provider-errors.js';
import { parseBody, parseIdempotencyKey } from '../../src/common/request-parsing.js';

describe('parseIdempotencyKey', () => {
  it('accepts a printable key, trimmed', () => {
    expect(parseIdempotencyKey('  mail.invoice.abc.v1 ')).toBe('mail.invoice.abc.v1');
  });

  it.each([
    ['missing', undefined, ProviderErrorCode.IdempotencyKeyMissing],
    ['blank', '   ', ProviderErrorCode.IdempotencyKeyInvalid],
    ['repeated', ['a', 'b'], ProviderErrorCode.IdempotencyKeyInvalid],
    ['too long', 'k'.repeat(513), ProviderErrorCode.IdempotencyKeyInvalid],
    ['not printable ASCII', 'clé', ProviderErrorCode.IdempotencyKeyInvalid],
  ])('refuses a %s key', (_case, header, code) => {
    expect(() => parseIdempotencyKey(header)).toThrow(expect.objectContaining({ code }));
  });
});

describe('parseBody', () => {
  const schema = z.object({ amount: z.number().int('must be an integer') });

  it('returns the parsed body', () => {
    expect(parseBody(schema, { amount: 3 })).toEqual({ amount: 3 });
  });

  it('lists every issue with its path', () => {
    expect(() => parseBody(schema, { amount: 1.5 })).toThrow(
      expect.objectContaining({
        code: ProviderErrorCode.ValidationFailed,
        issues: ['amount: must be an integer'],
      }),
    );
  });
});
