import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { JsonBodyMiddleware } from '../../src/http/json-body.js';

const LIMIT = 64;

/** What the route saw: the parsed body, or the parser's error (status and body-parser `type`). */
interface Outcome {
  readonly status: number;
  readonly body: unknown;
}

/** A real Express server with the middleware in front of a route that echoes what it parsed. */
async function serve() {
  const middleware = new JsonBodyMiddleware({ limitBytes: LIMIT });
  const app = express();
  app.use((req, res, next) => middleware.use(req, res, next));
  app.post('/echo', (req, res) => {
    res.status(200).json({ parsed: (req.body as unknown) ?? null });
  });
  app.use(
    (
      error: Error & { status?: number; type?: string },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      res.status(error.status ?? 500).json({ type: error.type ?? null });
    },
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** POSTs `body` with a Content-Length (the middleware's own path) or chunked (body-parser's path). */
function post(
  port: number,
  body: string,
  framing: 'length' | 'chunked',
  type = 'application/json',
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> =
      framing === 'length'
        ? { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) }
        : { 'content-type': type, 'transfer-encoding': 'chunked' };
    const req = http.request({ host: '127.0.0.1', port, path: '/echo', method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('JsonBodyMiddleware: a Content-Length body gets the answer body-parser gives the same bytes chunked', () => {
  let served: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    served = await serve();
  });
  afterAll(async () => {
    await served.close();
  });

  it.each([
    ['an object', '{"amount":100,"currency":"EUR"}'],
    ['an array', '[1,2,3]'],
    ['leading whitespace', ' \n\t{"a":1}'],
    ['a byte order mark', '\uFEFF{"a":1}'],
    ['non-ASCII text', '{"name":"Zoë ключ"}'],
    ['a string (strict: refused)', '"a string"'],
    ['a number (strict: refused)', '42'],
    ['null (strict: refused)', 'null'],
    ['malformed JSON', '{bad'],
    ['truncated JSON', '{"a":1'],
    ['trailing garbage', '{"a":1}x'],
    ['over the limit', `{"a":"${'x'.repeat(LIMIT)}"}`],
  ])('%s', async (_name, body) => {
    const viaBodyParser = await post(served.port, body, 'chunked');
    const direct = await post(served.port, body, 'length');
    expect(direct).toEqual(viaBodyParser);
  });

  it('reads a plain JSON body itself and leaves other media types to the route', async () => {
    expect(await post(served.port, '{"a":1}', 'length', 'application/json; charset=utf-8')).toEqual({
      status: 200,
      body: { parsed: { a: 1 } },
    });
    expect(await post(served.port, '{"a":1}', 'length', 'text/plain')).toEqual({
      status: 200,
      body: { parsed: null },
    });
  });
});
