import { describe, expect, it } from '@jest/globals';
import { methodMatches, pathMatches, pathOf, segmentsOf } from '../../src/path-matcher.js';

describe('path matching', () => {
  it('matches literal paths, ignoring the query and outer slashes', () => {
    expect(pathMatches('/v1/payments', '/v1/payments')).toBe(true);
    expect(pathMatches('/v1/payments', '/v1/payments/?x=1')).toBe(true);
    expect(pathMatches('/v1/payments', '/v1/payment')).toBe(false);
    expect(pathMatches('/v1/payments', '/v1/payments/p1')).toBe(false);
    expect(pathMatches('/', '/')).toBe(true);
  });

  it('lets * and :name stand for exactly one segment', () => {
    expect(pathMatches('/v1/orders/*/payments', '/v1/orders/o-1/payments')).toBe(true);
    expect(pathMatches('/v1/orders/:orderId/payments', '/v1/orders/o-1/payments')).toBe(true);
    expect(pathMatches('/v1/orders/*/payments', '/v1/orders/o-1/x/payments')).toBe(false);
    expect(pathMatches('/v1/orders/*', '/v1/orders')).toBe(false);
    expect(pathMatches('/*/*', '/a/b')).toBe(true);
  });

  it('names non-HTTP fault points the same way', () => {
    expect(pathMatches('invoices/after-send', 'invoices/after-send')).toBe(true);
    expect(pathMatches('invoices/*', 'invoices/before-ack')).toBe(true);
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
