import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// Ports handed out by this process: never the same one twice, even once its first taker has closed it.
const handedOut = new Set<number>();

const LOWEST = 20_000;

/**
 * The first port of the kernel's ephemeral range. A port the kernel picks for `listen(0)` comes from that range,
 * and so do the source ports of outgoing connections: a probed port, released, can be taken by any process's next
 * `connect()` before the service binds it (seen as EADDRINUSE on a metrics listener). Ports below the range are
 * only ever taken by an explicit bind.
 */
function ephemeralStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(start);
    return Number.isInteger(port) && port > LOWEST + 1_000 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range and never handed out
 * before by this process (a small window remains before the caller binds it, against other processes' binds).
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${end}`);
}
