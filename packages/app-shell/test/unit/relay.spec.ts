import { describe, expect, it } from '@jest/globals';
import type { HttpReply } from '../../src/http/http-platform.js';
import { relay } from '../../src/http/relay.js';

function fakeResponse() {
  const state: { status?: number; headers: Record<string, string> } = { headers: {} };
  const res = {
    status(code: number) {
      state.status = code;
      return this;
    },
    header(name: string, value: string) {
      state.headers[name] = value;
      return this;
    },
  };
  return { state, res: res satisfies HttpReply };
}

describe('relay', () => {
  it('passes status, body and the idempotency headers of a downstream answer', () => {
    const { state, res } = fakeResponse();
    const body = { code: 'payment_in_progress', status: 409 };
    const out = relay(res, {
      ok: false,
      status: 409,
      data: body,
      attempts: 1,
      headers: {
        'content-type': 'application/problem+json',
        'retry-after': '1',
        'x-internal': 'no',
        etag: 'W/"x"',
      },
    });
    expect(out).toBe(body);
    expect(state.status).toBe(409);
    expect(state.headers).toEqual({ 'content-type': 'application/problem+json', 'retry-after': '1' });
  });

  it('marks a replay to its first attempt: the answer was stored before this request arrived', () => {
    const { state, res } = fakeResponse();
    relay(res, {
      ok: true,
      status: 201,
      data: {},
      attempts: 1,
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
    });
    expect(state.status).toBe(201);
    expect(state.headers['idempotent-replayed']).toBe('true');
  });

  it('does not mark a replay to a retried attempt: it may be of what this request itself stored', () => {
    const { state, res } = fakeResponse();
    relay(res, {
      ok: true,
      status: 201,
      data: {},
      attempts: 2,
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
    });
    expect(state.status).toBe(201);
    expect(state.headers['idempotent-replayed']).toBeUndefined();
  });
});
