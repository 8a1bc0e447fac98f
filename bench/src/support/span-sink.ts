/** Where `pnpm bench:http`'s traced payments exports its spans: an OTLP/HTTP receiver that reads and drops them. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running sink: its URL (for `OTEL_EXPORTER_OTLP_ENDPOINT`), the bytes it received, and `close`. */
export interface SpanSink {
  readonly url: string;
  readonly receivedBytes: () => number;
  close(): Promise<void>;
}

/**
 * Answers every export 200 after reading it whole, as a collector would, and keeps nothing: the exporter's cost
 * (batching, serialising, sending) is paid in full by the service, none of a collector's by this process.
 */
export async function startSpanSink(): Promise<SpanSink> {
  let received = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receivedBytes: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
