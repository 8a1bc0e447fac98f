import { describe, expect, it } from '@jest/globals';
import { methodMatches, pathMatches, pathOf, segmentsOf } from '../../src/path-matcher.js';

describe('path matching', () => {
  // `*` and `:name` stand for exactly one segment; the query and outer slashes do not count; non-HTTP fault points
  // (`invoices/after-send`) are named the same way.
  it.each([
    {
      pattern: '/v1/payments',
      matches: ['/v1/payments', '/v1/payments/?x=1'],
      misses: ['/v1/payment', '/v1/payments/p1'],
    },
    { pattern: '/', matches: ['/'], misses: [] as string[] },
    {
      pattern: '/v1/orders/*/payments',
      matches: ['/v1/orders/o-1/payments'],
      misses: ['/v1/orders/o-1/x/payments'],
    },
    { pattern: '/v1/orders/:orderId/payments', matches: ['/v1/orders/o-1/payments'], misses: [] },
    { pattern: '/v1/orders/*', matches: [], misses: ['/v1/orders'] },
    { pattern: '/*/*', matches: ['/a/b'], misses: [] },
    { pattern: 'invoices/after-send', matches: ['invoices/after-send'], misses: [] },
    { pattern: 'invoices/*', matches: ['invoices/before-ack'], misses: [] },
  ])('pattern $pattern matches $matches and not $misses', ({ pattern, matches, misses }) => {
    expect(matches.filter((path) => !pathMatches(pattern, path))).toEqual([]);
    expect(misses.filter((path) => pathMatches(pattern, path))).toEqual([]);
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
