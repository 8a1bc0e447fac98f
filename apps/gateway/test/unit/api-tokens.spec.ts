import { describe, expect, it } from '@jest/globals';
import { ApiTokens, bearerTokenOf } from '../../src/auth/api-tokens.js';

const A = 'a0000000-0000-4000-8000-00000000000a';
const B = 'b0000000-0000-4000-8000-00000000000b';

describe('ApiTokens.parse', () => {
  it('maps each token to its tenant', () => {
    const tokens = ApiTokens.parse(`demo-token-tenant-a=${A}, demo-token-tenant-b=${B},`);
    expect(tokens.size).toBe(2);
    expect(tokens.tenantOf('demo-token-tenant-a')).toBe(A);
    expect(tokens.tenantOf('demo-token-tenant-b')).toBe(B);
    expect(tokens.tenantOf('demo-token-tenant-c')).toBeUndefined();
  });

  it('keeps b64token padding in the token (the tenant follows the last =)', () => {
    expect(ApiTokens.parse(`YWJjZGVmZ2hpamtsbW5vcA==${'='}${A}`).tenantOf('YWJjZGVmZ2hpamtsbW5vcA==')).toBe(
      A,
    );
  });

  it('lets one tenant have several tokens (rotation)', () => {
    const tokens = ApiTokens.parse(`old-token-0123456789=${A},new-token-0123456789=${A}`);
    expect(tokens.tenantOf('old-token-0123456789')).toBe(A);
    expect(tokens.tenantOf('new-token-0123456789')).toBe(A);
  });

  it.each([
    ['nothing', '', /no token/],
    ['an entry without =', 'demo-token-tenant-a', /token=tenantUuid/],
    ['an empty tenant', 'demo-token-tenant-a=', /token=tenantUuid/],
    ['a short token', `short=${A}`, /at least 16/],
    ['a token with a space', `demo token tenant a=${A}`, /at least 16/],
    ['a tenant that is not a UUID', 'demo-token-tenant-a=tenant-a', /UUID/],
    ['an upper-case tenant', `demo-token-tenant-a=${A.toUpperCase()}`, /lower-case UUID/],
    ['a duplicate token', `demo-token-tenant-a=${A},demo-token-tenant-a=${B}`, /twice/],
  ])('refuses %s', (_label, spec, message) => {
    expect(() => ApiTokens.parse(spec)).toThrow(message);
  });
});

describe('bearerTokenOf', () => {
  it.each([
    ['Bearer abc.def-ghi', 'abc.def-ghi'],
    ['bearer abc', 'abc'],
    ['BEARER  abc ', 'abc'],
  ])('reads %j', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });

  it.each([undefined, '', 'Basic YWxhZGRpbjpvcGVu', 'Bearer', 'Bearer a b', 'Bearer a"b', 'Token abc'])(
    'finds no bearer token in %j',
    (header) => {
      expect(bearerTokenOf(header)).toBeUndefined();
    },
  );
});
