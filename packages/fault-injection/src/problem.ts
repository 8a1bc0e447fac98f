import { STATUS_CODES, type ServerResponse } from 'node:http';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem body with the project's stable `code`. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extension: string]: unknown;
}

export function problemBody(
  status: number,
  code: string,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemBody {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code, ...extensions };
}

/** The two response methods {@link sendJson} uses (the originals when the response is wrapped). */
export interface ResponseWriter {
  writeHead(this: ServerResponse, status: number, headers: Record<string, string>): unknown;
  end(this: ServerResponse, chunk: string): unknown;
}

/** Writes `body` as JSON through the given writeHead/end (the originals when the response is wrapped). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  write: ResponseWriter = res as unknown as ResponseWriter,
): void {
  const text = JSON.stringify(body);
  const contentType = status >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json';
  write.writeHead.call(res, status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  write.end.call(res, text);
}
