import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { PassThrough } from 'node:stream';
import { answerParserErrorsWithProblems } from '../../src/common/client-error.js';

/** Emits a parser error on a server with the handler installed and returns what was written to the socket. */
function answerTo(code: string): string {
  const server = createServer();
  answerParserErrorsWithProblems(server);
  const socket = new PassThrough();
  server.emit('clientError', Object.assign(new Error(code), { code }), socket);
  return String(socket.read() ?? '');
}

describe('answerParserErrorsWithProblems', () => {
  it.each([
    ['HPE_INVALID_HEADER_TOKEN', 400, 'malformed_request'],
    ['HPE_HEADER_OVERFLOW', 431, 'request_headers_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
  ])('%s: %i problem+json %s, then the connection closes', (code, status, problemCode) => {
    const raw = answerTo(code);
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toContain('Content-Type: application/problem+json');
    expect(head).toContain('Connection: close');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({
      type: `urn:retry-safe:problem:${problemCode}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code: problemCode,
    });
  });

  it('only destroys a socket the client reset', () => {
    expect(answerTo('ECONNRESET')).toBe('');
  });
});
