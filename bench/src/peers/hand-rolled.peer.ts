import type { Redis } from 'ioredis';
import {
  connectIoredis,
  InProgressExpiry,
  SetUpPeer,
  type Charge,
  type ChargeAction,
  type PeerSettings,
} from './peer.js';

interface HandRolledState {
  readonly redis: Redis;
  readonly ttlMs: number;
}

/**
 * The baseline most services start with: `GET`; on a miss run the action and `SET ... PX ttl`. It is the floor
 * for latency (one round trip to replay, two to execute) and shows what a missing reservation costs: nothing
 * stops a duplicate that arrives before the `SET`.
 */
export class HandRolledPeer extends SetUpPeer<HandRolledState> {
  readonly name = 'hand-rolled GET/SET (ioredis)';
  readonly capabilities = {
    atomicClaim: false,
    inProgressExpiry: InProgressExpiry.None,
    payloadCheck: false,
    ownerCheckedComplete: false,
    storesBeforeReturning: true,
    redisClient: 'ioredis 5',
    wiring: 'GET key; on a miss run the action, then SET key json PX ttl. No in-progress marker.',
  } as const;

  protected async open(redisUrl: string, settings: PeerSettings): Promise<HandRolledState> {
    return { redis: await connectIoredis(redisUrl), ttlMs: settings.resultTtlMs };
  }

  protected async shut({ redis }: HandRolledState): Promise<void> {
    await redis.quit();
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    const { redis, ttlMs } = this.state;
    const redisKey = `bench-hand-rolled:${key}`;
    const stored = await redis.get(redisKey);
    if (stored !== null) return JSON.parse(stored) as Charge;
    const charge = await action();
    await redis.set(redisKey, JSON.stringify(charge), 'PX', ttlMs);
    return charge;
  }
}
