import type { Cluster, Redis } from 'ioredis';

/** Statuses in which ioredis has no connection and is only waiting to retry (or has given up). */
const DOWN_STATUSES: ReadonlySet<string> = new Set(['reconnecting', 'close', 'end', 'disconnecting']);

interface ConnectionState {
  /** The connection closed (or was refused) since it was last ready. */
  failedSinceReady: boolean;
}

// One listener pair per client, however many stores share it (a store per test or per module would otherwise
// add listeners until Node warns); the client's lifetime bounds the entry.
const states = new WeakMap<Redis | Cluster, ConnectionState>();

function stateOf(client: Redis | Cluster): ConnectionState {
  let state = states.get(client);
  if (!state) {
    const created: ConnectionState = { failedSinceReady: DOWN_STATUSES.has(client.status) };
    client.on('close', () => (created.failedSinceReady = true));
    client.on('end', () => (created.failedSinceReady = true));
    client.on('ready', () => (created.failedSinceReady = false));
    states.set(client, created);
    state = created;
  }
  return state;
}

/**
 * True while the client is known to have no working connection: it lost (or was refused) its connection and has
 * not been ready since. A command sent now would only sit in ioredis' offline queue until the store's timeout,
 * so the store answers "unavailable" at once instead. A client that is still making its first connection is not
 * known down (its queued commands are sent when it connects), and neither is a connected Redis that stopped
 * answering (SIGSTOP, a hung host): only the command timeout can tell that one.
 */
export function isKnownDown(client: Redis | Cluster): boolean {
  const state = stateOf(client);
  if (client.status === 'ready') return false;
  return DOWN_STATUSES.has(client.status) || state.failedSinceReady;
}

/** Cause of the "unavailable" answer given without sending anything, while {@link isKnownDown}. */
export class ConnectionDownError extends Error {
  constructor(status: string) {
    super(`Redis connection is down (ioredis status: ${status}); nothing was sent`);
    this.name = 'ConnectionDownError';
  }
}

/** Starts following the client's connection events, so that {@link isKnownDown} sees the first failure. */
export function watchConnection(client: Redis | Cluster): void {
  stateOf(client);
}
