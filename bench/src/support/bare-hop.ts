/**
 * One process of the floor chain of `pnpm bench:http` (`HTTP_BENCH_FLOOR=1`): a plain `node:http` server and
 * nothing else (no framework, no logging, no store), so its CPU per answer is what four HTTP hops cost at the least.
 *
 * - With `HOP_NEXT_URL`, a relay (gateway, orders, payments): reads the request body, sends the same method, path,
 *   body and the headers a service passes on to the next process over one keep-alive agent, and answers its client
 *   with the next one's status and JSON body (parsed and serialised once, as a service would).
 * - Without it, the last responder (provider-sim): 201 and a charge-like JSON body of about 170 bytes for every
 *   request, so order creation (whose `id` the bench reads), payments and replays all succeed.
 *
 * `HOP_PORT` is the port; `GET /health` answers 200 (what the bench polls before it starts the load).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

const port = Number(process.env['HOP_PORT']);
const nextUrl = process.env['HOP_NEXT_URL'] ? new URL(process.env['HOP_NEXT_URL']) : undefined;

// One pool of sockets to the next hop, reused across requests, as the services' HTTP clients keep theirs.
const agent = new http.Agent({ keepAlive: true });

// The headers a service passes on; every other one (authorization, host, autocannon's) stays at this hop.
const FORWARDED = ['content-type', 'idempotency-key', 'x-request-id'] as const;

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Sends `body` to the next hop and resolves its status and parsed JSON body. */
function forward(
  target: URL,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string | string[] | number> = { 'content-length': body.length };
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // The gateway mints a request id when the client sent none; the floor's first relay does the same.
  if (headers['x-request-id'] === undefined) headers['x-request-id'] = randomUUID();
  return new Promise((resolve, reject) => {
    const out = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        readBody(answer).then(
          (text) => resolve({ status: answer.statusCode ?? 502, json: JSON.parse(text.toString('utf8')) }),
          reject,
        );
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

/** A charge-like answer: the request's amount and currency (parsed as the provider does), a fresh id. */
function respond(body: Buffer, key: string | string[] | undefined): unknown {
  const params = body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
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

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/health') return sendJson(res, 200, { status: 'ok' });
  const body = await readBody(req);
  if (nextUrl === undefined) return sendJson(res, 201, respond(body, req.headers['idempotency-key']));
  const { status, json } = await forward(nextUrl, req, body);
  sendJson(res, status, json);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // A failed hop must show as non-2xx in the bench's table, not as a hung connection.
    if (!res.headersSent) sendJson(res, 502, { error: String(error) });
    else res.destroy();
  });
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
});
