import { describe, expect, it } from '@jest/globals';
import {
  HttpClientErrorCode,
  InvalidRequestError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  createServiceClient,
  isHttpClientError,
} from '../../src/index.js';

describe('errors', () => {
  it('carry a stable code, the attempts, the last response and the cause', () => {
    const cause = new Error('socket hang up');
    const response = {
      status: 503,
      data: { code: 'idempotency_store_unavailable' },
      headers: { 'retry-after': '1' },
    };
    const error = new UpstreamUnavailableError('down', {
      method: 'POST',
      path: '/v1/x',
      attempts: 4,
      response,
      cause,
    });
    expect(error).toMatchObject({
      code: HttpClientErrorCode.UpstreamUnavailable,
      name: 'UpstreamUnavailableError',
      attempts: 4,
      lastStatus: 503,
      response,
      cause,
    });
    expect(new UpstreamTimeoutError('late', { method: 'GET', path: '/', attempts: 2 }).code).toBe(
      'UPSTREAM_TIMEOUT',
    );
    expect(isHttpClientError(error)).toBe(true);
    expect(isHttpClientError({ code: 'UPSTREAM_TIMEOUT' })).toBe(true);
    expect(isHttpClientError(new Error('x'))).toBe(false);
  });
});

describe('createServiceClient (no network)', () => {
  const client = createServiceClient({ baseURL: 'http://127.0.0.1:9' });

  it('needs a base URL', () => {
    expect(() => createServiceClient({})).toThrow(InvalidRequestError);
  });

  it('refuses a key that the HTTP stack would alter instead of sending a different key', async () => {
    for (const idempotencyKey of [' k1', 'k1 ', 'a\nb', 'a\u0000b', 'ключ']) {
      await expect(client.post('/x', {}, { idempotencyKey })).rejects.toMatchObject({
        code: 'HTTP_CLIENT_INVALID_REQUEST',
        attempts: 0,
      });
    }
  });

  it('fails fast with UPSTREAM_TIMEOUT when the deadline has passed', async () => {
    await expect(client.post('/x', {}, { deadline: Date.now() - 1 })).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      attempts: 0,
    });
  });
});
