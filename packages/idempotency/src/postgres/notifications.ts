import type { Notification, Pool, PoolClient } from 'pg';

/**
 * One LISTEN connection per store, taken from the pool on the first watch and kept until {@link close}: every
 * completion or release on the store's table is announced on one channel with `<operation>:<key>` as payload,
 * and this dispatches it to the listeners of that record. A lost connection is dropped and re-opened by the next
 * `listen`; a waiter it fails to wake still wakes on the coordinator's timer.
 */
export class Notifications {
  private client: Promise<PoolClient> | undefined;
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
  ) {}

  /**
   * Adds `listener` for `record`; resolves once LISTEN is active (concurrent first callers share the one
   * LISTEN, so none returns before it), so a completion committed afterwards is delivered.
   */
  async listen(record: string, listener: () => void): Promise<() => void> {
    let set = this.listeners.get(record);
    if (!set) {
      set = new Set();
      this.listeners.set(record, set);
    }
    set.add(listener);
    const remove = (): void => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(record) === set) this.listeners.delete(record);
    };
    try {
      await (this.client ??= this.connect());
    } catch (error) {
      remove();
      throw error;
    }
    return remove;
  }

  /** Gives the LISTEN connection back to the pool. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.listeners.clear();
    if (!client) return;
    const connected = await client.catch(() => undefined);
    if (!connected) return;
    connected.removeAllListeners('notification');
    // Destroyed rather than returned: a pooled connection must not stay subscribed to the channel.
    connected.release(true);
  }

  private async connect(): Promise<PoolClient> {
    const pending = (async () => {
      const client = await this.pool.connect();
      const drop = (error?: Error): void => {
        if (this.client !== pending) return;
        this.client = undefined;
        client.removeAllListeners('notification');
        client.release(error ?? true);
      };
      client.on('notification', (message: Notification) => {
        if (message.channel !== this.channel || message.payload === undefined) return;
        for (const listener of [...(this.listeners.get(message.payload) ?? [])]) listener();
      });
      client.on('error', drop);
      try {
        await client.query(`LISTEN "${this.channel}"`);
      } catch (error) {
        drop(error as Error);
        throw error;
      }
      return client;
    })();
    pending.catch(() => {
      if (this.client === pending) this.client = undefined;
    });
    return pending;
  }
}
