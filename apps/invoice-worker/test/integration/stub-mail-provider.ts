import { createServer, type Server } from 'node:http';
import { parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import { freePort } from '@retry-safe/testing';

/** One answer of the stub: a status, and headers such as `retry-after`. */
export interface StubAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Holds the answer this long (the email counts as sent when the call arrived). */
  readonly delayMs?: number;
}

/**
 * A stand-in for the mail provider (apps never import each other): sends on every call, records the keys as a
 * provider reads them (decoded from their wire form).
 */
export interface StubMailProvider {
  readonly url: string;
  readonly calls: { idempotencyKey: string | undefined; to: string }[];
  /** When each call arrived (epoch ms) and the status it got, in the order of {@link calls}. */
  readonly answers: { at: number; status: number }[];
  /** The next answers' status (201 by default). */
  respondWith(status: number): void;
  /** Answers for the next calls, in order, before going back to the {@link respondWith} status. */
  script(answers: readonly StubAnswer[]): void;
  close(): Promise<void>;
}

export async function startStubMailProvider(): Promise<StubMailProvider> {
  const calls: StubMailProvider['calls'] = [];
  const answers: StubMailProvider['answers'] = [];
  const scripted: StubAnswer[] = [];
  let status = 201;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const key = parseIdempotencyKeyHeader(req.headersDistinct['idempotency-key'], { maxLength: 512 });
      const answer = scripted.shift() ?? { status };
      calls.push({ idempotencyKey: key.ok ? key.key : undefined, to: JSON.parse(body).to });
      answers.push({ at: Date.now(), status: answer.status });
      const ok = answer.status < 300;
      const emailId = `em_${calls.length}`;
      const reply = (): void => {
        res.writeHead(answer.status, {
          'content-type': ok ? 'application/json' : 'application/problem+json',
          ...answer.headers,
        });
        res.end(JSON.stringify(ok ? { emailId } : { status: answer.status, code: 'refused' }));
      };
      if (answer.delayMs === undefined) reply();
      else setTimeout(reply, answer.delayMs);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    answers,
    respondWith: (next) => {
      status = next;
    },
    script: (answers) => {
      scripted.push(...answers);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
