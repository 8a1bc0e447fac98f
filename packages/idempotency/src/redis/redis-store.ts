import type { Cluster, Redis } from 'ioredis';
import { IdempotencyStoreUnavailableError, InvalidIdempotencyOptionsError } from '../errors.js';
import {
  ClaimStatus,
  type ClaimRequest,
  type ClaimResult,
  type CompleteRequest,
  type IdempotencyStore,
  type RecordId,
  type ReleaseRequest,
  type RenewRequest,
  type StoreIfAbsentRequest,
} from '../store.js';
import { REDIS_STORE_DEFAULTS, REDIS_STORE_LIMITS } from './defaults.js';
import { claimResultOf, flagOf } from './replies.js';
import { scripts, type LuaScript } from './scripts.js';

/** Version of the record layout written by this code; a record with another version is reported corrupt. */
export const RECORD_FORMAT_VERSION = '1';

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /**
   * Prepended to every record key (`<keyPrefix><operation>:<key>`), to share a Redis with other data.
   * @default REDIS_STORE_DEFAULTS.keyPrefix ('idem:')
   */
  keyPrefix?: string;
  /**
   * Upper bound for every store call, whatever the ioredis client's own retry and offline-queue settings, so a
   * dead or paused Redis never hangs a request. A call that exceeds it fails with
   * `IDEMPOTENCY_STORE_UNAVAILABLE`.
   * @default REDIS_STORE_DEFAULTS.commandTimeoutMs (1000)
   */
  commandTimeoutMs?: number;
}

class CommandTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'CommandTimeoutError';
  }
}

/**
 * {@link IdempotencyStore} on Redis 7. Every state change is one Lua script touching one key, so each step is
 * atomic and the store works unchanged on Redis Cluster. Takes a connected ioredis client (standalone or Cluster)
 * and never closes it; {@link close} only closes the subscriber connection the store opened for `watch`.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  private subscriber: Redis | Cluster | undefined;
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly client: Redis | Cluster,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? REDIS_STORE_DEFAULTS.keyPrefix;
    this.commandTimeoutMs = options.commandTimeoutMs ?? REDIS_STORE_DEFAULTS.commandTimeoutMs;
    const { min, max } = REDIS_STORE_LIMITS.commandTimeoutMs;
    if (
      !Number.isInteger(this.commandTimeoutMs) ||
      this.commandTimeoutMs < min ||
      this.commandTimeoutMs > max
    ) {
      throw new InvalidIdempotencyOptionsError(
        `commandTimeoutMs must be an integer between ${min} and ${max}, got ${this.commandTimeoutMs}`,
      );
    }
  }

  /** The Redis key of a record. Operation and key cannot contain `:`, so the name is unambiguous. */
  recordKey({ operation, key }: RecordId): string {
    return `${this.keyPrefix}${operation}:${key}`;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const reply = this.eval(scripts.claim, this.recordKey(request), [
      request.owner,
      request.fingerprint,
      request.leaseMs,
      request.retainMs,
      RECORD_FORMAT_VERSION,
    ]);
    try {
      return claimResultOf(await this.bounded(reply, request));
    } catch (error) {
      if (error instanceof IdempotencyStoreUnavailableError && error.cause instanceof CommandTimeoutError) {
        // The claim may still run later (ioredis queues commands while reconnecting). Should it grant us the key,
        // give it back at once: the caller has already been told the store is unavailable and will never complete
        // it, and the key must not stay blocked for a whole lease. Commands on one connection run in order, so
        // this release runs after that claim.
        reply
          .then((late) => {
            if (claimResultOf(late).status === ClaimStatus.Acquired) return this.release(request);
            return false;
          })
          .catch(() => undefined);
      }
      throw error;
    }
  }

  async complete(request: CompleteRequest): Promise<boolean> {
    const key = this.recordKey(request);
    return flagOf(
      await this.bounded(
        this.eval(scripts.complete, key, [
          request.owner,
          request.payload,
          request.ttlMs,
          key,
          RECORD_FORMAT_VERSION,
        ]),
        request,
      ),
    );
  }

  async renew(request: RenewRequest): Promise<boolean> {
    return flagOf(
      await this.bounded(
        this.eval(scripts.renew, this.recordKey(request), [
          request.owner,
          request.leaseMs,
          RECORD_FORMAT_VERSION,
        ]),
        request,
      ),
    );
  }

  async release(request: ReleaseRequest): Promise<boolean> {
    const key = this.recordKey(request);
    const args = [request.owner, key, RECORD_FORMAT_VERSION];
    return flagOf(await this.bounded(this.eval(scripts.release, key, args), request));
  }

  async storeIfAbsent(request: StoreIfAbsentRequest): Promise<boolean> {
    const key = this.recordKey(request);
    const args = [request.fingerprint, request.payload, request.ttlMs, RECORD_FORMAT_VERSION, key];
    return flagOf(await this.bounded(this.eval(scripts.storeIfAbsent, key, args), request));
  }

  /**
   * Pub/sub on a channel named like the record key: complete and release publish to it. Plain (not sharded)
   * pub/sub, so on a Cluster a subscriber on any node hears it.
   */
  async watch(id: RecordId, listener: () => void): Promise<() => Promise<void>> {
    const channel = this.recordKey(id);
    const subscriber = this.subscriberConnection();
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    if (set.size === 1) {
      try {
        await this.bounded(subscriber.subscribe(channel), id);
      } catch (error) {
        this.forget(channel, listener);
        throw error;
      }
    }
    return async () => {
      if (this.forget(channel, listener)) {
        await this.bounded(subscriber.unsubscribe(channel), id).catch(() => undefined);
      }
    };
  }

  /** Closes the subscriber connection opened for {@link watch}. The client passed in stays open. */
  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.listeners.clear();
    if (subscriber) subscriber.disconnect();
  }

  /** Removes a listener; true when it was the channel's last one. */
  private forget(channel: string, listener: () => void): boolean {
    const set = this.listeners.get(channel);
    if (!set) return false;
    set.delete(listener);
    if (set.size > 0) return false;
    this.listeners.delete(channel);
    return true;
  }

  private subscriberConnection(): Redis | Cluster {
    if (!this.subscriber) {
      const subscriber = this.client.duplicate();
      // Errors surface through bounded() on subscribe; the connection reconnects and resubscribes by itself.
      subscriber.on('error', () => undefined);
      subscriber.on('message', (channel: string) => {
        for (const listener of [...(this.listeners.get(channel) ?? [])]) listener();
      });
      this.subscriber = subscriber;
    }
    return this.subscriber;
  }

  /** EVALSHA, falling back to EVAL (which caches the script) after a NOSCRIPT (e.g. Redis restarted). */
  private eval(script: LuaScript, key: string, args: (string | number)[]): Promise<unknown> {
    return this.client.evalsha(script.sha, script.numberOfKeys, key, ...args).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return this.client.eval(script.source, script.numberOfKeys, key, ...args);
      }
      throw error;
    });
  }

  /** Settles with `promise`, or fails with `IDEMPOTENCY_STORE_UNAVAILABLE` after `commandTimeoutMs`. */
  private bounded<T>(promise: Promise<T>, id: RecordId): Promise<T> {
    // One timer and one promise per call: this wraps every store call on the hot path.
    return new Promise<T>((resolve, reject) => {
      const unavailable = (error: unknown): void =>
        reject(
          new IdempotencyStoreUnavailableError(
            `Idempotency store unavailable: ${error instanceof Error ? error.message : String(error)}`,
            { operation: id.operation, key: id.key, cause: error },
          ),
        );
      const timer = setTimeout(
        () => unavailable(new CommandTimeoutError(this.commandTimeoutMs)),
        this.commandTimeoutMs,
      );
      timer.unref();
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          unavailable(error);
        },
      );
    });
  }
}
