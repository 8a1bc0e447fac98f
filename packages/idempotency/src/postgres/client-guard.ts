import type { ClientBase } from 'pg';

/**
 * Keeps a lost connection from crashing the process. node-postgres emits `'error'` on a client whose socket
 * breaks (reset, closed by the server), and an EventEmitter's `'error'` without a listener is thrown: the pool's
 * own listener covers idle clients only, so a client the store has checked out (or a caller's client the store is
 * running a statement on) needs one of its own for that time. The failed query itself still rejects, and that
 * rejection is what the store reports (as `IDEMPOTENCY_STORE_UNAVAILABLE`); the event carries nothing more.
 * Returns the function that takes the listener off again.
 */
export function guardClient(client: Pick<ClientBase, 'on' | 'off'>): () => void {
  const ignore = (): void => undefined;
  client.on('error', ignore);
  return () => void client.off('error', ignore);
}

/** {@link guardClient} while `work` runs; the listener comes off once it settled. */
export async function guarded<T>(client: Pick<ClientBase, 'on' | 'off'>, work: () => Promise<T>): Promise<T> {
  const unguard = guardClient(client);
  try {
    return await work();
  } finally {
    unguard();
  }
}
