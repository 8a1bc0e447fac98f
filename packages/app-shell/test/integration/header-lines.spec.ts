import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { headerLinesOf } from '../../src/http/header-lines.js';

/** What the server read: `headerLinesOf` and Node's `headersDistinct` of every name asked in `x-ask`. */
type Seen = Record<string, { lines: string[] | null; distinct: string[] | null }>;

let server: Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const seen: Seen = {};
    for (const name of String(req.headers['x-ask']).split(',')) {
      seen[name] = { lines: headerLinesOf(req, name) ?? null, distinct: req.headersDistinct[name] ?? null };
    }
    res.setHeader('connection', 'close');
    res.end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends `head` (field lines as written, in any case and repeated) on a raw socket; the server's JSON answer. */
function send(head: string[]): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Seen));
    socket.on('error', reject);
    socket.end(['GET / HTTP/1.1', 'Host: test', ...head, '', ''].join('\r\n'));
  });
}

describe('headerLinesOf', () => {
  it("lists a header's field lines as headersDistinct does: any case, repeated, in order, or none", async () => {
    const seen = await send([
      'x-ask: idempotency-key,x-tenant-id,authorization',
      'Idempotency-Key: k-1',
      'X-Other: o',
      'IDEMPOTENCY-KEY: k-2',
      'idempotency-key: "k-3"',
      'x-tenant-id: t-1',
    ]);
    expect(seen).toEqual({
      'idempotency-key': { lines: ['k-1', 'k-2', '"k-3"'], distinct: ['k-1', 'k-2', '"k-3"'] },
      'x-tenant-id': { lines: ['t-1'], distinct: ['t-1'] },
      authorization: { lines: null, distinct: null },
    });
  });
});
