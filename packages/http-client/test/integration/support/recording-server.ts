import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach } from '@jest/globals';
import { freePort } from '@retry-safe/testing';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers the n-th request (1-based). */
export type Responder = (n: number, req: IncomingMessage, res: ServerResponse) => void;

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A node:http server on a free port that records every request (with its body) before `respond` answers it. */
export async function startRecordingServer(respond: Responder): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      respond(requests.length, req, res);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
}

export function problem(
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
) {
  json(res, status, { type: 'about:blank', title: code, status, detail: code, code }, headers);
}

/** Destroys the socket without answering: the client sees ECONNRESET ("socket hang up" or a TCP reset). */
export function reset(req: IncomingMessage): void {
  req.socket.resetAndDestroy();
}

/** Something a test started and must stop. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * For a test file: `serve` starts a {@link RecordingServer}, `track` takes any other server; both are closed after
 * each test.
 */
export function closedAfterEach(): {
  serve: (respond: Responder) => Promise<RecordingServer>;
  track: (server: Closable) => void;
} {
  const open: Closable[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return {
    serve: async (respond) => {
      const server = await startRecordingServer(respond);
      open.push(server);
      return server;
    },
    track: (server) => {
      open.push(server);
    },
  };
}
