import type { Cluster, Redis } from 'ioredis';
import { InvalidIdempotencyOptionsError } from '../errors.js';
import type { LuaScript } from './scripts.js';

/**
 * Opt-in replication check for {@link RedisIdempotencyStoreOptions.durability}: after the claim and after the
 * completion the store sends `WAIT replicas timeoutMs` in the same round trip as the script.
 *
 * `WAIT` tells how many replicas acknowledged this connection's writes so far. It narrows, but does not close,
 * the window in which a failover loses a write: a replica that acknowledged can still lose it (it restarts
 * without persistence, or another, less advanced replica is promoted), and a write that timed out may still
 * reach the replicas later. Redis replication stays asynchronous; `WAIT` does not make it strongly consistent.
 */
export interface DurabilityOptions {
  /** Replicas that must acknowledge the claim (else the store counts as unavailable) and the result. */
  readonly replicas: number;
  /**
   * Longest `WAIT` blocks; must be below `commandTimeoutMs`. `WAIT` blocks the whole connection, so every command
   * queued behind it on a shared client waits too while a replica lags: keep it small.
   */
  readonly timeoutMs: number;
}

/** Cause of an "unavailable" claim: the reservation was made but too few replicas acknowledged it. */
export class NotReplicatedError extends Error {
  constructor(
    readonly acknowledged: number,
    readonly required: number,
    timeoutMs: number,
  ) {
    super(`${acknowledged} of ${required} replica(s) acknowledged the write within ${timeoutMs} ms`);
    this.name = 'NotReplicatedError';
  }
}

/** Refuses settings `WAIT` would misread: 0 replicas, or a timeout of 0 (which means "block forever"). */
export function assertDurability(durability: DurabilityOptions, commandTimeoutMs: number): void {
  const { replicas, timeoutMs } = durability;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new InvalidIdempotencyOptionsError(
      `durability.replicas must be a positive integer, got ${replicas}`,
    );
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs >= commandTimeoutMs) {
    throw new InvalidIdempotencyOptionsError(
      `durability.timeoutMs must be a positive integer below commandTimeoutMs (${commandTimeoutMs}), got ${timeoutMs}`,
    );
  }
}

/** A script's reply and how many replicas `WAIT` reported for it. */
export interface ReplicatedReply {
  readonly reply: unknown;
  readonly acknowledged: number;
}

/** True for the error Redis answers an `EVALSHA` of a script it does not have cached (e.g. after a restart). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * The script, then `WAIT`, in one pipeline: one round trip, and on a Cluster both go to the key's node (a
 * pipeline follows its keyed commands), which is the connection `WAIT` must ask about.
 */
export async function evalThenWait(
  client: Redis | Cluster,
  script: LuaScript,
  key: string,
  args: (string | number)[],
  durability: DurabilityOptions,
): Promise<ReplicatedReply> {
  const run = async (withSource: boolean): Promise<ReplicatedReply> => {
    const pipeline = client.pipeline();
    if (withSource) pipeline.eval(script.source, script.numberOfKeys, key, ...args);
    else pipeline.evalsha(script.sha, script.numberOfKeys, key, ...args);
    pipeline.wait(durability.replicas, durability.timeoutMs);
    const [scriptResult, waitResult] = (await pipeline.exec()) ?? [];
    if (!scriptResult || !waitResult) throw new Error('the pipeline returned no results');
    if (scriptResult[0]) throw scriptResult[0];
    if (waitResult[0]) throw waitResult[0];
    return { reply: scriptResult[1], acknowledged: Number(waitResult[1]) };
  };
  try {
    return await run(false);
  } catch (error) {
    // The WAIT of that attempt waited for nothing: the script did not run. Send both again, with the source.
    if (isNoScript(error)) return run(true);
    throw error;
  }
}
