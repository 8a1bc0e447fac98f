import type { Cluster, Redis } from 'ioredis';
import { Deadlines } from '../deadline.js';
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
import { ConnectionDownError, isKnownDown, watchConnection } from './connection-state.js';
import { REDIS_STORE_DEFAULTS, REDIS_STORE_LIMITS } from './defaults.js';
import {
  NotReplicatedError,
  assertDurability,
  evalThenWait,
  isNoScript,
  type DurabilityOptions,
} from './durability.js';
import { claimResultOf, flagOf } from '../store-replies.js';
import { batchWritesThisTick } from './write-batching.js';
import { scripts, type LuaScript } from './scripts.js';
import { RecordSubscriptions } from './subscriptions.js';

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
   * `IDEMPOTENCY_STORE_UNAVAILABLE`. While the connection is known down (refused, reconnecting) a claim does not
   * wait for it: it fails at once without sending anything. A connected Redis that stopped answering is only
   * detected by this timeout.
   * @default REDIS_STORE_DEFAULTS.commandTimeoutMs (1000)
   */
  commandTimeoutMs?: number;
  /**
   * Opt-in: `WAIT` for this many replicas after the claim and the completion (same round trip as the script).
   * A claim too few replicas acknowledged is given back and answered `IDEMPOTENCY_STORE_UNAVAILABLE` (the
   * coordinator's fail policy decides what follows); a result too few acknowledged is kept and reported as a
   * `not_durable` event. See {@link DurabilityOptions} for what `WAIT` does and does not promise.
   * @default undefined (no WAIT: a failover can lose the last claims and results)
   * @example { replicas: 1, timeoutMs: 100 }
   */
  durability?: DurabilityOptions;
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
  readonly durability: DurabilityOptions | undefined;
  private readonly subscriptions: RecordSubscriptions;
  private readonly deadlines = new Deadlines();
  /** Record key -> owner of a claim that timed out, until its reservation is known to be given back. */
  private readonly abandoned = new Map<string, { owner: string; until: number }>();

  constructor(
    private readonly client: Redis | Cluster,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    this.subscriptions = new RecordSubscriptions(client);
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
    this.durability = options.durability && { ...options.durability };
    if (this.durability) assertDurability(this.durability, this.commandTimeoutMs);
    watchConnection(client);
  }

  /** The Redis key of a record. Operation and key cannot contain `:`, so the name is unambiguous. */
  recordKey({ operation, key }: RecordId): string {
    return `${this.keyPrefix}${operation}:${key}`;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    // Fail fast: while the connection is known down a claim could only wait out commandTimeoutMs in the offline
    // queue (and might then run late). Only claims: complete/release/renew may still land after a reconnect.
    if (isKnownDown(this.client)) {
      throw new IdempotencyStoreUnavailableError(
        'Idempotency store unavailable: the Redis connection is down',
        {
          operation: request.operation,
          key: request.key,
          cause: new ConnectionDownError(this.client.status),
        },
      );
    }
    const key = this.recordKey(request);
    const abandoned = this.abandonedOwner(key);
    const args = [
      request.owner,
      request.fingerprint,
      request.leaseMs,
      request.retainMs,
      RECORD_FORMAT_VERSION,
      abandoned ?? '',
    ];
    const reply = this.durability
      ? this.claimReplicated(request, key, args, this.durability)
      : this.eval(scripts.claim, key, args);
    try {
      const result = claimResultOf(await this.bounded(reply, request));
      // The record has moved past the abandoned reservation (this claim took it over, or found another state).
      if (abandoned !== undefined) this.forgetAbandoned(key, abandoned);
      return result;
    } catch (error) {
      if (error instanceof IdempotencyStoreUnavailableError && error.cause instanceof CommandTimeoutError) {
        this.giveBack(key, request, reply);
      }
      throw error;
    }
  }

  /**
   * The caller of a timed-out claim was told the store is unavailable and will never complete it, yet Redis may
   * have run it (or will: ioredis resends unanswered commands after a reconnect). Its reservation must not block
   * the key for a whole lease: an owner-checked release is sent after it (commands on one connection run in
   * order), and until that is done, this store's next claim of the key takes that reservation over at once.
   */
  private giveBack(key: string, request: ClaimRequest, reply: Promise<unknown>): void {
    const now = Date.now();
    for (const [k, entry] of this.abandoned) if (entry.until <= now) this.abandoned.delete(k);
    this.abandoned.set(key, { owner: request.owner, until: now + request.leaseMs });
    const release = (): Promise<void> =>
      this.release(request).then(
        () => this.forgetAbandoned(key, request.owner),
        () => undefined,
      );
    reply
      .then((late) =>
        claimResultOf(late).status === ClaimStatus.Acquired
          ? release()
          : this.forgetAbandoned(key, request.owner),
      )
      .catch(release)
      .catch(() => undefined);
  }

  private abandonedOwner(key: string): string | undefined {
    if (this.abandoned.size === 0) return undefined;
    const entry = this.abandoned.get(key);
    return entry && entry.until > Date.now() ? entry.owner : undefined;
  }

  private forgetAbandoned(key: string, owner: string): void {
    if (this.abandoned.get(key)?.owner === owner) this.abandoned.delete(key);
  }

  async complete(request: CompleteRequest): Promise<boolean> {
    const key = this.recordKey(request);
    const args = [
      request.owner,
      request.payload ?? '',
      request.ttlMs,
      key,
      RECORD_FORMAT_VERSION,
      request.payload === null ? 'e' : 'c',
    ];
    if (!this.durability) return flagOf(await this.bounded(this.eval(scripts.complete, key, args), request));
    const { reply, acknowledged } = await this.bounded(
      evalThenWait(this.client, scripts.complete, key, args, this.durability),
      request,
    );
    const stored = flagOf(reply);
    // The result is stored and the effect has happened: failing now would only make the client retry it.
    if (stored && acknowledged < this.durability.replicas) request.onNotDurable?.();
    return stored;
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
   * Sharded pub/sub (`SSUBSCRIBE`) on a channel named like the record key: complete and release `SPUBLISH` to it,
   * so on a Cluster the notification stays within the key's slot. Resolves once the subscription is active; the
   * function it returns ends the watch at once (the unsubscribe is not waited for).
   */
  async watch(id: RecordId, listener: () => void): Promise<() => Promise<void>> {
    const { active, remove } = this.subscriptions.add(this.recordKey(id), listener);
    try {
      await this.bounded(active, id);
    } catch (error) {
      remove();
      throw error;
    }
    return async () => remove();
  }

  /** Closes the subscriber connection opened for {@link watch}. The client passed in stays open. */
  async close(): Promise<void> {
    this.subscriptions.close();
  }

  /** The claim, then WAIT; a reservation too few replicas acknowledged is given back and reported unavailable. */
  private async claimReplicated(
    request: ClaimRequest,
    key: string,
    args: (string | number)[],
    durability: DurabilityOptions,
  ): Promise<unknown> {
    const { reply, acknowledged } = await evalThenWait(this.client, scripts.claim, key, args, durability);
    if (acknowledged >= durability.replicas || claimResultOf(reply).status !== ClaimStatus.Acquired)
      return reply;
    // A failover now could forget the reservation and let a duplicate run: do not act on it. Given back before
    // answering, so the caller's retry finds the key free rather than blocked for a lease.
    await this.release(request).catch(() => false);
    throw new NotReplicatedError(acknowledged, durability.replicas, durability.timeoutMs);
  }

  /** EVALSHA, falling back to EVAL (which caches the script) after a NOSCRIPT (e.g. Redis restarted). */
  private eval(script: LuaScript, key: string, args: (string | number)[]): Promise<unknown> {
    batchWritesThisTick(this.client);
    return this.client.evalsha(script.sha, script.numberOfKeys, key, ...args).catch((error: unknown) => {
      if (isNoScript(error)) {
        return this.client.eval(script.source, script.numberOfKeys, key, ...args);
      }
      throw error;
    });
  }

  /** Settles with `promise`, or fails with `IDEMPOTENCY_STORE_UNAVAILABLE` after `commandTimeoutMs`. */
  private bounded<T>(promise: Promise<T>, id: RecordId): Promise<T> {
    const unavailable = (error: unknown) =>
      new IdempotencyStoreUnavailableError(
        `Idempotency store unavailable: ${error instanceof Error ? error.message : String(error)}`,
        { operation: id.operation, key: id.key, cause: error },
      );
    return this.deadlines.bound(
      promise,
      this.commandTimeoutMs,
      () => unavailable(new CommandTimeoutError(this.commandTimeoutMs)),
      unavailable,
    );
  }
}
