import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { problem, PROBLEM_CONTENT_TYPE } from '@retry-safe/contracts/http';

/** What Node's HTTP parser refuses before any route runs, by the status it answers. */
const PARSER_PROBLEMS: Record<number, { code: string; title: string; detail: string }> = {
  400: {
    code: 'malformed_request',
    title: 'Malformed request',
    detail: 'The request is not valid HTTP/1.1 (e.g. a control character in a header value)',
  },
  408: { code: 'request_timeout', title: 'Request timeout', detail: 'The request did not arrive in time' },
  431: {
    code: 'request_headers_too_large',
    title: 'Request header fields too large',
    detail: 'The request headers are too large',
  },
};

/**
 * Answers requests Node's HTTP parser refuses (a control character in a header value, a broken request line,
 * headers over the limit) with a problem+json body, like every other error of the gateway. Node's default answer
 * is a bare `400 Bad Request` without a body. Same statuses and rules as the default: 431 for too large headers,
 * 408 for a request timeout, 400 otherwise; a socket that cannot be written to is only destroyed.
 */
export function answerParserErrorsWithProblems(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const { code, title, detail } = PARSER_PROBLEMS[status] as (typeof PARSER_PROBLEMS)[number];
    const body = JSON.stringify(problem(status, code, title, detail));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
