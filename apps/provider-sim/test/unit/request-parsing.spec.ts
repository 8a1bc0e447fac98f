import { describe, expect, it } from '@jest/globals';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { problemForIdempotencyError } from '@retry-safe/idempotency/nest';
import { z } from 'zod';
import { ProviderErrorCode } from '../../src/common/provider-errors.js';
import { parseBody, parseIdempotencyKey } from '../../src/common/request-parsing.js';

describe('parseIdempotencyKey', () => {
  it('accepts a printable key, trimmed', () => {
    expect(parseIdempotencyKey('  mail.invoice.abc.v1 ')).toBe('mail.invoice.abc.v1');
  });

  it.each([
    ['missing', undefined, 'idempotency_key_missing'],
    ['blank', '   ', 'idempotency_key_invalid'],
    ['repeated', ['a', 'b'], 'idempotency_key_invalid'],
    ['too long', 'k'.repeat(513), 'idempotency_key_invalid'],
    ['not printable ASCII', 'clé', 'idempotency_key_invalid'],
  ])("refuses a %s key with the library's key error, answered %s", (_case, header, problemCode) => {
    let thrown: unknown;
    try {
      parseIdempotencyKey(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: IdempotencyErrorCode.InvalidKey });
    expect(problemForIdempotencyError(thrown)).toMatchObject({ status: 400, code: problemCode });
  });

  it('accepts a key of 512 characters, longer than the coordinator stores', () => {
    expect(parseIdempotencyKey('k'.repeat(512))).toBe('k'.repeat(512));
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
