import type { Server } from 'node:http';

/**
 * How long, and how many, client connections a server keeps (`HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`,
 * `KEEP_ALIVE_TIMEOUT_MS`, `MAX_CONNECTIONS`, read by `shellEnv`). Node's own defaults (300 s for a request, no
 * cap) let a few slow clients hold a service's sockets for minutes.
 */
export interface ServerLimits {
  /** `HEADERS_TIMEOUT_MS`: the request line and headers must have arrived within it (else 408, connection cut). */
  readonly headersTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS` (at least `HEADERS_TIMEOUT_MS`): the whole request must have arrived within it. */
  readonly requestTimeoutMs: number;
  /** `KEEP_ALIVE_TIMEOUT_MS`: an idle kept-alive connection is closed after it. */
  readonly keepAliveTimeoutMs: number;
  /** `MAX_CONNECTIONS`: open connections at most; Node destroys the ones beyond it on arrival. */
  readonly maxConnections: number;
}

/** The {@link ServerLimits} when no variable says otherwise. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

/** The message for limits Node would refuse (`REQUEST_TIMEOUT_MS` under `HEADERS_TIMEOUT_MS`), or `undefined`. */
export function serverLimitsProblem(limits: ServerLimits): string | undefined {
  return limits.requestTimeoutMs < limits.headersTimeoutMs
    ? `must be at least HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs})`
    : undefined;
}

/**
 * Applies `limits` to `server`; call it before the server listens. Node checks the header and request timeouts
 * every `connectionsCheckingInterval` (30 s by its default, read when the server starts listening), so the
 * interval is brought down to a tenth of the header timeout: a trickling client is cut within about 10% of it.
 */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1_000, Math.floor(limits.headersTimeoutMs / 10)),
  );
}
