import { Redis } from 'ioredis';
import { InProgressExpiry, type Charge, type ChargeAction, type Peer, type PeerSettings } from './peer.js';

/**
 * The baseline most services start with: `GET`; on a miss run the action and `SET ... PX ttl`. It is the floor
 * for latency (one round trip to replay, two to execute) and shows what a missing reservation costs: nothing
 * stops a duplicate that arrives before the `SET`.
 */
export class HandRolledPeer implements Peer {
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

  #redis: Redis | undefined;
  #ttlMs = 0;

  async setup(redisUrl: string, settings: PeerSettings): Promise<void> {
    this.#redis = new Redis(redisUrl, { lazyConnect: true });
    await this.#redis.connect();
    this.#ttlMs = settings.resultTtlMs;
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    const redis = this.#client();
    const redisKey = `bench-hand-rolled:${key}`;
    const stored = await redis.get(redisKey);
    if (stored !== null) return JSON.parse(stored) as Charge;
    const charge = await action();
    await redis.set(redisKey, JSON.stringify(charge), 'PX', this.#ttlMs);
    return charge;
  }

  async close(): Promise<void> {
    await this.#redis?.quit();
    this.#redis = undefined;
  }

  #client(): Redis {
    if (!this.#redis) throw new Error(`${this.name}: setup() was not called`);
    return this.#redis;
  }
}
