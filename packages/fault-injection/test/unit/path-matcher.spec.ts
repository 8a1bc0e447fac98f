import { describe, expect, it } from '@jest/globals';
import { methodMatches, pathMatches, pathOf, segmentsOf } from '../../src/path-matcher.js';

describe('path matching', () => {
  // [pattern, path, matches]: `*` and `:name` stand for exactly one segment; the query and outer slashes do not
  // count; non-HTTP fault points (`invoices/after-send`) are named the same way.
  it.each([
    ['/v1/payments', '/v1/payments', true],
    ['/v1/payments', '/v1/payments/?x=1', true],
    ['/v1/payments', '/v1/payment', false],
    ['/v1/payments', '/v1/payments/p1', false],
    ['/', '/', true],
    ['/v1/orders/*/payments', '/v1/orders/o-1/payments', true],
    ['/v1/orders/:orderId/payments', '/v1/orders/o-1/payments', true],
    ['/v1/orders/*/payments', '/v1/orders/o-1/x/payments', false],
    ['/v1/orders/*', '/v1/orders', false],
    ['/*/*', '/a/b', true],
    ['invoices/after-send', 'invoices/after-send', true],
    ['invoices/*', 'invoices/before-ack', true],
  ] as const)('pattern %s against %s: %s', (pattern, path, matches) => {
    expect(pathMatches(pattern, path)).toBe(matches);
  });

  it('compares methods case-insensitively, * for any', () => {
    expect(methodMatches('POST', 'post')).toBe(true);
    expect(methodMatches('*', 'DELETE')).toBe(true);
    expect(methodMatches('GET', 'POST')).toBe(false);
  });

  it('splits paths', () => {
    expect(pathOf('/a/b?c=d#e')).toBe('/a/b');
    expect(segmentsOf('//a/b/')).toEqual(['a', 'b']);
    expect(segmentsOf('/')).toEqual([]);
  });
});
