import type { Redis } from 'ioredis';

/** Redis commands a measured block caused, two ways. */
export interface CommandCount {
  /**
   * Commands the server executed, from `INFO commandstats` after `CONFIG RESETSTAT`. Includes every command a
   * Lua script ran (`redis.call`), on top of the `EVALSHA`/`EVAL`/`FCALL` itself.
   */
  readonly server: number;
  /**
   * Commands that arrived from the clients, from `MONITOR` (which tags script-internal commands with source
   * `lua`; those are left out). A script call counts 1, a `MULTI`..`EXEC` block counts 1: the round trips a
   * client needs without pipelining.
   */
  readonly roundTrips: number;
  /** Server-side count per command, e.g. `{ evalsha: 2, get: 1 }`. */
  readonly serverByCommand: Readonly<Record<string, number>>;
  /** Client-side count per command. */
  readonly clientByCommand: Readonly<Record<string, number>>;
}

interface MonitorLike {
  on(
    event: 'monitor',
    listener: (time: string, args: string[], source: string, database: string) => void,
  ): void;
  disconnect(): void;
}

/** Commands the counter itself sends on the admin connection; they never belong to a peer. */
const OWN_COMMANDS = new Set([
  'config|resetstat',
  'config',
  'info',
  'echo',
  'client|info',
  'client',
  'monitor',
]);

/**
 * Counts the Redis commands a block of peer calls causes, on a Redis server the benchmark owns alone (so
 * `CONFIG RESETSTAT` disturbs no one and nothing else adds to the counts).
 *
 * The window is delimited with `ECHO` sentinels seen through `MONITOR`, so commands still in flight when the block
 * returns are not lost and none from before it leak in. `MONITOR` slows the server down, so it is on only inside
 * {@link RedisCommandCounter.count}: count in a phase of its own, never while timing.
 */
export class RedisCommandCounter {
  readonly #admin: Redis;
  readonly #adminAddress: string;
  #window: { readonly id: number; recording: boolean; readonly counts: Map<string, number> } | undefined;
  #sentinelSeen: ((sentinel: string) => void) | undefined;
  readonly #inMulti = new Set<string>();
  #nextWindow = 0;

  private constructor(admin: Redis, adminAddress: string) {
    this.#admin = admin;
    this.#adminAddress = adminAddress;
  }

  /** Starts counting through `admin` (an ioredis client this counter then owns and closes). */
  static async start(admin: Redis): Promise<RedisCommandCounter> {
    const info = String(await admin.call('CLIENT', 'INFO'));
    const address = /(?:^| )addr=(\S+)/.exec(info)?.[1];
    if (!address) throw new Error(`cannot read this connection's address from CLIENT INFO: ${info}`);
    return new RedisCommandCounter(admin, address);
  }

  /** Runs `block` and returns the commands it caused (await every background write inside `block`). */
  async count(block: () => Promise<void>): Promise<CommandCount> {
    const id = this.#nextWindow++;
    const counts = new Map<string, number>();
    this.#window = { id, recording: false, counts };
    this.#inMulti.clear();
    // MONITOR only for the window: a monitor slows every command down, so it must not run while timing.
    const monitor = (await this.#admin.monitor()) as unknown as MonitorLike;
    let info: string;
    try {
      monitor.on('monitor', (_time, args, source) => this.#onCommand(args, source));
      await this.#admin.config('RESETSTAT');
      await this.#sentinel(`bench-window-${id}-start`);
      await block();
      await this.#sentinel(`bench-window-${id}-end`);
      info = await this.#admin.info('commandstats');
    } finally {
      monitor.disconnect();
      this.#window = undefined;
    }

    const serverByCommand: Record<string, number> = {};
    for (const [, name, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (name === undefined || OWN_COMMANDS.has(name)) continue;
      serverByCommand[name] = Number(calls);
    }
    const clientByCommand = Object.fromEntries(counts);
    return {
      server: sum(Object.values(serverByCommand)),
      roundTrips: sum(Object.values(clientByCommand)),
      serverByCommand,
      clientByCommand,
    };
  }

  async close(): Promise<void> {
    await this.#admin.quit();
  }

  async #sentinel(text: string): Promise<void> {
    const seen = new Promise<void>((resolve) => {
      this.#sentinelSeen = (sentinel) => {
        if (sentinel === text) resolve();
      };
    });
    await this.#admin.echo(text);
    await seen;
  }

  #onCommand(args: string[], source: string): void {
    const name = (args[0] ?? '').toLowerCase();
    if (source === this.#adminAddress) {
      if (name === 'echo' && args[1] !== undefined) {
        const window = this.#window;
        if (window && args[1] === `bench-window-${window.id}-start`) window.recording = true;
        if (window && args[1] === `bench-window-${window.id}-end`) window.recording = false;
        this.#sentinelSeen?.(args[1]);
      }
      return;
    }
    const window = this.#window;
    // Commands a script runs reach MONITOR with source "lua": they are not round trips.
    if (!window?.recording || source === 'lua') return;
    if (name === 'multi') {
      this.#inMulti.add(source);
      return;
    }
    if (this.#inMulti.has(source) && name !== 'exec' && name !== 'discard') return;
    if (name === 'exec' || name === 'discard') this.#inMulti.delete(source);
    window.counts.set(name, (window.counts.get(name) ?? 0) + 1);
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
