/**
 * What the hops of both floor chains of `pnpm bench:http` share (bare-hop.ts and nest-hop.ts): the keep-alive call to
 * the next hop and the responder's charge, so the two floors differ only in what serves the request.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

// One pool of sockets to the next hop, reused across requests, as the services' HTTP clients keep theirs.
const agent = new http.Agent({ keepAlive: true });

// The headers a service passes on; every other one (authorization, host, autocannon's) stays at this hop.
const FORWARDED = ['content-type', 'idempotency-key', 'x-request-id'] as const;

/** What a relay sends on: the request's method, path and body, and the headers it came with. */
export interface HopRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** The next hop's answer: its status and parsed JSON body. */
export interface HopAnswer {
  readonly status: number;
  readonly json: unknown;
}

/** The whole body of `message`. */
export function readBody(message: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

/** Sends `request` to the next hop at `target` over the shared keep-alive agent; resolves its answer. */
export function forward(target: URL, request: HopRequest): Promise<HopAnswer> {
  const headers: Record<string, string | string[] | number> = { 'content-length': request.body.length };
  for (const name of FORWARDED) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // The gateway mints a request id when the client sent none; the floor's first relay does the same.
  if (headers['x-request-id'] === undefined) headers['x-request-id'] = randomUUID();
  return new Promise((resolve, reject) => {
    const out = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.path,
        headers,
        agent,
      },
      (answer) => {
        readBody(answer).then(
          (text) => resolve({ status: answer.statusCode ?? 502, json: JSON.parse(text.toString('utf8')) }),
          reject,
        );
      },
    );
    out.on('error', reject);
    out.end(request.body);
  });
}

/** Closes the pooled sockets to the next hop (on SIGTERM, so the process can end). */
export function closeHopAgent(): void {
  agent.destroy();
}

/** A charge-like answer of about 170 bytes: the request's amount and currency, a fresh id. */
export function chargeOf(params: Record<string, unknown>, key: string | string[] | undefined): unknown {
  return {
    id: randomUUID(),
    object: 'charge',
    amount: params['amount'] ?? 0,
    currency: params['currency'] ?? 'EUR',
    status: 'succeeded',
    idempotencyKey: key ?? null,
    createdAt: new Date().toISOString(),
  };
}
