import { describe, expect, it } from '@jest/globals';
import { keepAliveAgents, pathOn, targetOf } from '../../src/target.js';

describe('targetOf and pathOn: a base URL parsed once, a path per attempt', () => {
  const agents = keepAliveAgents();

  it('joins a base URL with a path prefix and a path with one slash, and defaults the port to the scheme', () => {
    const target = targetOf('https://payments.internal/api/', agents);

    expect(target).toMatchObject({
      protocol: 'https:',
      host: 'payments.internal',
      port: 443,
      agent: agents.https,
    });
    expect(pathOn(target, '/v1/payments?x=1')).toBe('/api/v1/payments?x=1');
    expect(pathOn(target, 'v1/payments')).toBe('/api/v1/payments');
    expect(`${target.origin}${pathOn(target, '//v1')}`).toBe('https://payments.internal/api/v1');
  });

  it('connects to an IPv6 host without its brackets, and names it as the URL writes it', () => {
    const target = targetOf('http://[::1]:3002', agents);

    expect(target).toMatchObject({ host: '::1', hostname: '[::1]', port: 3002, agent: agents.http });
    expect(pathOn(target, '/x')).toBe('/x');
  });

  it('refuses what is not an http(s) URL', () => {
    expect(() => targetOf('ftp://files', agents)).toThrow('not an http(s) URL: ftp://files');
    expect(() => targetOf('not a url', agents)).toThrow('Invalid URL');
  });
});
