import { createServer, type Server } from 'node:http';
import { parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import { freePort } from '@retry-safe/testing';

/**
 * A stand-in for the mail provider (apps never import each other): sends on every call, records the keys as a
 * provider reads them (decoded from their wire form).
 */
export interface StubMailProvider {
  readonly url: string;
  readonly calls: { idempotencyKey: string | undefined; to: string }[];
  /** The next answers' status (201 by default). */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export async function startStubMailProvider(): Promise<StubMailProvider> {
  const calls: StubMailProvider['calls'] = [];
  let status = 201;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const key = parseIdempotencyKeyHeader(req.headersDistinct['idempotency-key'], { maxLength: 512 });
      calls.push({ idempotencyKey: key.ok ? key.key : undefined, to: JSON.parse(body).to });
      res.writeHead(status, {
        'content-type': status < 300 ? 'application/json' : 'application/problem+json',
      });
      res.end(JSON.stringify(status < 300 ? { emailId: `em_${calls.length}` } : { status, code: 'refused' }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    respondWith: (next) => {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
