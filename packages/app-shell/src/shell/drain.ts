import type { Server } from 'node:http';

/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 50;

/** What {@link drainServer} did. */
export interface DrainResult {
  /** True when requests were still running at the drain timeout and their connections were cut. */
  readonly timedOut: boolean;
}

/**
 * Stops accepting connections and waits for the in-flight requests to finish, at most `timeoutMs`. A keep-alive
 * connection is closed as soon as it is idle (between requests), so a client holding one cannot stretch the drain;
 * at the timeout the remaining connections are destroyed. Resolves once the server has closed.
 */
export function drainServer(server: Server, timeoutMs: number): Promise<DrainResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    if (!server.listening) {
      resolve({ timedOut });
      return;
    }
    // Connections that finish their request later become idle after this first sweep: sweep until closed.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      timedOut = true;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve({ timedOut });
    });
    server.closeIdleConnections();
  });
}
