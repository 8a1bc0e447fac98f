import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { FaultRulesInvalidError } from './fault-injection.errors.js';
import type { FaultInjector } from './fault-injector.js';
import { pathOf } from './path-matcher.js';
import { problemBody, sendJson } from './problem.js';

/** Where the admin API lives: `PUT` replaces the rules, `GET` reads rules and counters, `DELETE` clears both. */
export const FAULTS_PATH = '/__faults';

const MAX_BODY_BYTES = 256 * 1024;

/** Whether a request URL addresses the admin API (query ignored, trailing slash tolerated). */
export function isFaultsPath(url: string): boolean {
  const path = pathOf(url);
  return path === FAULTS_PATH || path === `${FAULTS_PATH}/`;
}

/** An answer of the admin API. */
export interface FaultAdminReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

class BodyError extends Error {}

/** Reads a JSON body from the stream; `undefined` for an empty body. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(`body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BodyError(`body is not JSON: ${(error as Error).message}`);
  }
}

/** The admin API, framework-free: `readBody` is only called for `PUT`. */
export async function handleFaultAdmin(
  injector: FaultInjector,
  method: string,
  readBody: () => Promise<unknown>,
): Promise<FaultAdminReply> {
  switch (method.toUpperCase()) {
    case 'GET':
      return { status: 200, body: injector.snapshot() };
    case 'DELETE':
      injector.clear();
      return { status: 204 };
    case 'PUT': {
      try {
        injector.replaceRules(await readBody());
        return { status: 200, body: injector.snapshot() };
      } catch (error) {
        if (error instanceof FaultRulesInvalidError) {
          return {
            status: 400,
            body: problemBody(400, 'validation_failed', error.message, { errors: error.issues }),
          };
        }
        if (error instanceof BodyError) {
          return { status: 400, body: problemBody(400, 'validation_failed', error.message) };
        }
        throw error;
      }
    }
    default:
      return {
        status: 405,
        headers: { allow: 'GET, PUT, DELETE' },
        body: problemBody(405, 'method_not_allowed', `${method} is not supported on ${FAULTS_PATH}`),
      };
  }
}

/** Writes a {@link FaultAdminReply}. */
export function sendAdminReply(res: ServerResponse, reply: FaultAdminReply): void {
  if (reply.body === undefined) {
    res.writeHead(reply.status, { 'cache-control': 'no-store', ...reply.headers });
    res.end();
    return;
  }
  sendJson(res, reply.status, reply.body, reply.headers);
}

/** Answers an admin request on a node:http request/response pair; `parsedBody` when a body parser ran. */
export async function serveFaultAdmin(
  injector: FaultInjector,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
): Promise<void> {
  try {
    const reply = await handleFaultAdmin(injector, req.method ?? 'GET', () =>
      parsedBody !== undefined || req.readableEnded ? Promise.resolve(parsedBody) : readJsonBody(req),
    );
    sendAdminReply(res, reply);
  } catch (error) {
    if (!res.headersSent) {
      sendJson(res, 500, problemBody(500, 'internal_error', (error as Error).message));
    } else {
      res.destroy();
    }
  }
}

/** Options of {@link createFaultAdminServer}. */
export interface FaultAdminServerOptions {
  injector: FaultInjector;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /**
   * Interface to listen on.
   * @default '127.0.0.1'
   */
  host?: string;
}

/** A running admin listener. */
export interface FaultAdminServer {
  readonly port: number;
  /** `http://host:port`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * A tiny node:http listener with the same `PUT/GET/DELETE /__faults` API, for apps without an HTTP server of their
 * own (the queue worker). Anything else answers 404.
 */
export async function createFaultAdminServer(options: FaultAdminServerOptions): Promise<FaultAdminServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    if (!isFaultsPath(req.url ?? '/')) {
      sendJson(res, 404, problemBody(404, 'not_found', `no route for ${req.method ?? ''} ${req.url ?? ''}`));
      return;
    }
    void serveFaultAdmin(options.injector, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
