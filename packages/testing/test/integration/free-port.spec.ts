import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { freePort, portRange } from '../../src/free-port.js';

const [ephemeralStart] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freePort', () => {
  it('hands out ports below the ephemeral range (an outgoing connection can never take them), each once', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 200; i += 1) ports.push(await freePort());

    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(Number(ephemeralStart));
  });

  it('a port it hands out can be bound, and one bound elsewhere is not handed out', async () => {
    const port = await freePort();
    const server = await listen(port);
    try {
      const others: number[] = [];
      for (let i = 0; i < 50; i += 1) others.push(await freePort());
      expect(others).not.toContain(port);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('two Jest workers of one run draw from disjoint slices, so they never hand out the same port', async () => {
    const own = process.env['JEST_WORKER_ID'];
    const drawAs = async (worker: string | undefined) => {
      if (worker === undefined) delete process.env['JEST_WORKER_ID'];
      else process.env['JEST_WORKER_ID'] = worker;
      const ports: number[] = [];
      for (let i = 0; i < 50; i += 1) ports.push(await freePort());
      return { range: portRange(), ports };
    };
    try {
      const [first, second, outside] = [await drawAs('1'), await drawAs('2'), await drawAs(undefined)];
      expect(first.range.high).toBeLessThanOrEqual(second.range.low);
      for (const { range, ports } of [first, second]) {
        for (const port of ports) {
          expect(port).toBeGreaterThanOrEqual(range.low);
          expect(port).toBeLessThan(range.high);
        }
      }
      // Not a Jest worker (the demo, a benchmark): the whole span below the ephemeral range.
      expect(outside.range).toEqual({ low: first.range.low, high: Number(ephemeralStart) });
    } finally {
      if (own === undefined) delete process.env['JEST_WORKER_ID'];
      else process.env['JEST_WORKER_ID'] = own;
    }
  });
});
