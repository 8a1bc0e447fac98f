/**
 * Slow and hostile clients: a client trickling header lines is answered 408 and cut after `HEADERS_TIMEOUT_MS`
 * (10 s by default, Node's own would hold it for 300 s), one trickling its body after `REQUEST_TIMEOUT_MS`, and a
 * service keeps at most `MAX_CONNECTIONS` open. The limits are the shell's, so every service has them: provider-sim
 * shows the defaults, the gateway (the public edge) the client, one header line every 2 s.
 */
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { DEMO_SECRETS } from '@retry-safe/contracts';
import { DEMO_API_TOKENS, repoRoot } from '@retry-safe/scenarios';
import {
  freePort,
  sleep,
  startServiceProcess,
  TEST_INTERNAL_TOKEN,
  type ServiceProcess,
} from '@retry-safe/testing';

const PROVIDER = join(repoRoot(), 'apps', 'provider-sim', 'dist', 'main.js');
const GATEWAY = join(repoRoot(), 'apps', 'gateway', 'dist', 'main.js');

async function startProvider(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  return startServiceProcess({
    name: 'provider-slow',
    entry: PROVIDER,
    port,
    env: { PROVIDER_PORT: String(port), ...env },
    healthPath: '/health/live',
  });
}

/**
 * Opens a connection and sends one header line every `intervalMs`, never the blank line that ends them: resolves
 * when the server closes it, with what it answered and how long it held the connection.
 */
function trickleHeaders(
  port: number,
  intervalMs: number,
  giveUpMs: number,
): Promise<{ heldMs: number; answer: string }> {
  return trickle(
    port,
    'GET /v1/charges HTTP/1.1\r\nHost: provider\r\n',
    () => `X-Slow-${Date.now()}: a\r\n`,
    {
      intervalMs,
      giveUpMs,
    },
  );
}

/**
 * Opens a connection, sends `head`, then `next()` every `intervalMs`: resolves when the server closes it, with the
 * status line it answered and how long it held the connection.
 */
function trickle(
  port: number,
  head: string,
  next: () => string,
  { intervalMs, giveUpMs }: { intervalMs: number; giveUpMs: number },
): Promise<{ heldMs: number; answer: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const started = Date.now();
    let answer = '';
    socket.write(head);
    const trickle = setInterval(() => socket.write(next()), intervalMs);
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ heldMs: Date.now() - started, answer: answer.split('\r\n', 1)[0] ?? '' });
    });
  });
}

describe('slow clients are cut off', () => {
  it('headers trickled one line per 500 ms: 408 and closed after the default 10 s header timeout', async () => {
    const provider = await startProvider();
    try {
      const { heldMs, answer } = await trickleHeaders(provider.port, 500, 40_000);
      expect(answer).toBe('HTTP/1.1 408 Request Timeout');
      expect(heldMs).toBeGreaterThanOrEqual(9_500);
      expect(heldMs).toBeLessThan(13_000);
    } finally {
      await provider.kill();
    }
  });

  it('HEADERS_TIMEOUT_MS=1000: the trickling client is cut within about a second and a half', async () => {
    const provider = await startProvider({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
    try {
      const { heldMs, answer } = await trickleHeaders(provider.port, 100, 20_000);
      expect(answer).toBe('HTTP/1.1 408 Request Timeout');
      expect(heldMs).toBeLessThan(2_500);
    } finally {
      await provider.kill();
    }
  });

  it('MAX_CONNECTIONS=3: a fourth connection is closed on arrival, the first three still answer', async () => {
    const provider = await startProvider({ MAX_CONNECTIONS: '3' });
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const socket = connect({ host: '127.0.0.1', port: provider.port });
        await new Promise((resolve) => socket.once('connect', resolve));
        sockets.push(socket);
      }
      await sleep(200);
      const fourth = connect({ host: '127.0.0.1', port: provider.port });
      sockets.push(fourth);
      fourth.on('error', () => undefined);
      fourth.write('GET /health/live HTTP/1.1\r\nHost: provider\r\n\r\n');
      let fourthAnswer = '';
      fourth.on('data', (chunk: Buffer) => (fourthAnswer += chunk.toString()));
      await new Promise((resolve) => fourth.once('close', resolve));
      expect(fourthAnswer).toBe('');

      const first = sockets[0]!;
      let answer = '';
      first.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      first.write('GET /health/live HTTP/1.1\r\nHost: provider\r\nConnection: close\r\n\r\n');
      await new Promise((resolve) => first.once('close', resolve));
      expect(answer.split('\r\n', 1)[0]).toBe('HTTP/1.1 200 OK');
    } finally {
      for (const socket of sockets) socket.destroy();
      await provider.kill();
    }
  });
});

describe('slow clients are cut off at the gateway, the public edge', () => {
  // Shorter than the defaults (10 s, 15 s) to keep the suite fast; the cut is asserted relative to them.
  const HEADERS_TIMEOUT_MS = 4_000;
  const REQUEST_TIMEOUT_MS = 6_000;
  /** How late after its timeout a connection may still be cut: Node checks every tenth of the header timeout. */
  const SLACK_MS = 1_500;

  it('headers trickled one line per 2 s: 408 and closed at HEADERS_TIMEOUT_MS; a body trickled after complete headers: 408 at REQUEST_TIMEOUT_MS', async () => {
    const port = await freePort();
    const gateway = await startServiceProcess({
      name: 'gateway-slow',
      entry: GATEWAY,
      port,
      env: {
        GATEWAY_PORT: String(port),
        METRICS_PORT: '0',
        INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
        API_TOKENS: DEMO_API_TOKENS,
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
      healthPath: '/health/live',
    });
    try {
      const order = `POST /v1/orders HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${DEMO_SECRETS.tenants.a.token}\r\n`;
      const [headers, body] = await Promise.all([
        trickle(port, order, () => `X-Slow-${Date.now()}: a\r\n`, { intervalMs: 2_000, giveUpMs: 40_000 }),
        trickle(
          port,
          `${order}Idempotency-Key: slow-body\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
          () => ' ',
          { intervalMs: 2_000, giveUpMs: 40_000 },
        ),
      ]);
      expect([headers.answer, body.answer]).toEqual([
        'HTTP/1.1 408 Request Timeout',
        'HTTP/1.1 408 Request Timeout',
      ]);
      expect(headers.heldMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(headers.heldMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
      expect(body.heldMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(body.heldMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    } finally {
      await gateway.kill();
    }
  });
});
