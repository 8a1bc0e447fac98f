/**
 * One process of the floor chain of `pnpm bench:http` (`HTTP_BENCH_FLOOR=1` or `bare`): a plain `node:http` server and
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
import http from 'node:http';
import { chargeOf, closeHopAgent, forward, readBody } from './hop-relay.js';

const port = Number(process.env['HOP_PORT']);
const nextUrl = process.env['HOP_NEXT_URL'] ? new URL(process.env['HOP_NEXT_URL']) : undefined;

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The request's JSON body as an object (parsed as the provider does); `{}` when it has none. */
function paramsOf(body: Buffer): Record<string, unknown> {
  return body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/health') return sendJson(res, 200, { status: 'ok' });
  const body = await readBody(req);
  if (nextUrl === undefined)
    return sendJson(res, 201, chargeOf(paramsOf(body), req.headers['idempotency-key']));
  const { status, json } = await forward(nextUrl, {
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: req.headers,
    body,
  });
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
  closeHopAgent();
});
