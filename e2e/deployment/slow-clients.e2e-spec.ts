/**
 * Slow and hostile clients: a client trickling header lines is answered 408 and cut after `HEADERS_TIMEOUT_MS`
 * (10 s by default, Node's own would hold it for 300 s), and a service keeps at most `MAX_CONNECTIONS` open.
 */
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { repoRoot } from '@retry-safe/scenarios';
import { freePort, sleep, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';

const PROVIDER = join(repoRoot(), 'apps', 'provider-sim', 'dist', 'main.js');

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
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const started = Date.now();
    let answer = '';
    socket.write('GET /v1/charges HTTP/1.1\r\nHost: provider\r\n');
    const trickle = setInterval(() => socket.write(`X-Slow-${Date.now()}: a\r\n`), intervalMs);
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
