import type { Cluster, Redis } from 'ioredis';

interface Channel {
  readonly listeners: Set<() => void>;
  /** The SSUBSCRIBE under way or done; every watcher of the channel waits for this one. */
  readonly subscribed: Promise<unknown>;
}

const ignore = (): void => undefined;

/**
 * The wake-ups of waiters: one subscriber connection per store, sharded pub/sub (`SSUBSCRIBE`, Redis 7) on the
 * record key as channel, so on a Cluster the completion goes only to the node that owns the key's slot. A channel
 * is subscribed while it has listeners; every watcher of it, the second as much as the first, waits for the one
 * SSUBSCRIBE; the last listener to leave unsubscribes once that SSUBSCRIBE settled, so a subscription is never
 * left without a listener.
 */
export class RecordSubscriptions {
  private connection: Redis | Cluster | undefined;
  private readonly channels = new Map<string, Channel>();

  constructor(private readonly client: Redis | Cluster) {}

  /** Adds `listener` to `channel`. `active` settles once the subscription is active (or failed). */
  add(channel: string, listener: () => void): { active: Promise<unknown>; remove: () => void } {
    let entry = this.channels.get(channel);
    if (!entry) {
      const created: Channel = { listeners: new Set(), subscribed: this.subscriber().ssubscribe(channel) };
      // A failed SSUBSCRIBE leaves nothing to undo: forget the channel, so that the next watch tries again.
      created.subscribed.catch(() => {
        if (this.channels.get(channel) === created) this.channels.delete(channel);
      });
      this.channels.set(channel, created);
      entry = created;
    }
    const joined = entry;
    joined.listeners.add(listener);
    return { active: joined.subscribed, remove: () => this.remove(channel, joined, listener) };
  }

  /** Drops every subscription and closes the subscriber connection. */
  close(): void {
    this.channels.clear();
    this.connection?.disconnect();
    this.connection = undefined;
  }

  // Returns at once: a waiter that has its result must not wait for the SUNSUBSCRIBE round trip.
  private remove(channel: string, entry: Channel, listener: () => void): void {
    entry.listeners.delete(listener);
    if (entry.listeners.size > 0) return;
    void entry.subscribed.then(ignore, ignore).then(() => {
      // Someone joined meanwhile, or the channel was already forgotten (failed or closed): nothing to undo.
      if (entry.listeners.size > 0 || this.channels.get(channel) !== entry) return;
      this.channels.delete(channel);
      // Sent now, on the subscriber connection: a later SSUBSCRIBE of this channel is sent after it.
      this.connection?.sunsubscribe(channel).catch(ignore);
    });
  }

  private subscriber(): Redis | Cluster {
    if (!this.connection) {
      const connection = this.client.isCluster
        ? (this.client as Cluster).duplicate([], { shardedSubscribers: true })
        : (this.client as Redis).duplicate();
      // Errors surface through the store's bounded() on subscribe; the connection reconnects and resubscribes.
      connection.on('error', ignore);
      connection.on('smessage', (channel: string) => {
        for (const listener of [...(this.channels.get(channel)?.listeners ?? [])]) listener();
      });
      this.connection = connection;
    }
    return this.connection;
  }
}
