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

/** How many slices the ports below the ephemeral range are cut into, one per Jest worker (more wrap around). */
const WORKER_SLICES = 4;

/**
 * The ports this process may hand out, `[low, high)`. A Jest worker (`JEST_WORKER_ID` 1, 2, ...) gets a slice of
 * its own: each worker knows only the ports it handed out itself, and a port is free from the probe until the
 * service it is meant for binds it, a second or more later. Two workers drawing from one range handed out the same
 * port within that window (a gateway's EADDRINUSE in a full run). Outside Jest: the whole range.
 */
export function portRange(): { readonly low: number; readonly high: number } {
  const end = ephemeralStart();
  const worker = Number(process.env['JEST_WORKER_ID']);
  if (!Number.isInteger(worker) || worker < 1) return { low: LOWEST, high: end };
  const size = Math.floor((end - LOWEST) / WORKER_SLICES);
  const slice = (worker - 1) % WORKER_SLICES;
  return { low: LOWEST + slice * size, high: LOWEST + (slice + 1) * size };
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range, in this process's
 * {@link portRange} and never handed out before by this process (a small window remains before the caller binds
 * it, against other processes' binds).
 */
export async function freePort(): Promise<number> {
  const { low, high } = portRange();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}
