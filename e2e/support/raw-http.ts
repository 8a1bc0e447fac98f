import { connect } from 'node:net';

/**
 * A request written byte for byte on a TCP socket. Node's own HTTP client refuses header values with control or
 * non-Latin-1 characters and merges nothing on its own terms; a client in the wild does neither, so bad-input tests
 * write the bytes themselves.
 */
export interface RawRequest {
  /** @default 'POST' */
  method?: string;
  path: string;
  /** In order, repeats allowed; each value is written as UTF-8 bytes (so `é` goes out as `C3 A9`). */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** Written as is (a string as UTF-8); `Content-Length` is added for it. */
  body?: string | Buffer;
}

/** The answer to a {@link RawRequest}: header names in lower case (repeats joined with `, `), body as UTF-8. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` to `baseUrl` on a new connection (`Connection: close`, `Host` and `Content-Length` added) and
 * reads the whole answer. A server may reset the connection right after answering (e.g. a 413 before reading the
 * body): a complete answer read before the reset is still returned.
 */
export async function sendRaw(
  baseUrl: string,
  request: RawRequest,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const lines = [
    `${request.method ?? 'POST'} ${request.path} HTTP/1.1`,
    `Host: ${url.host}`,
    'Connection: close',
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    ...(body === undefined ? [] : [`Content-Length: ${body.length}`]),
  ];
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');

  return new Promise<RawResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed !== undefined) resolve(parsed);
      else
        reject(
          error ??
            new Error(
              `incomplete HTTP response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`,
            ),
        );
    };
    socket.setTimeout(timeoutMs, () => finish(new Error(`no complete answer within ${timeoutMs} ms`)));
    socket.on('connect', () => {
      socket.write(body === undefined ? head : Buffer.concat([head, body]));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => finish(error));
  });
}

/** Parses a complete HTTP/1.1 response (Content-Length, chunked, or read to the end); undefined if incomplete. */
function parseResponse(raw: Buffer): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let rest = raw.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) return undefined;
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    rest = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    rest = rest.subarray(0, length);
  }
  return { status: Number(status), headers, body: rest.toString('utf8') };
}
