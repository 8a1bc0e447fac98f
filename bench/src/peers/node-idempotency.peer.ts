import { Idempotency, type IdempotencyParams } from '@node-idempotency/core';
import { RedisStorageAdapter } from '@node-idempotency/storage-adapter-redis';
import {
  CHARGE_REQUEST,
  InProgressExpiry,
  SetUpPeer,
  type Charge,
  type ChargeAction,
  type PeerSettings,
} from './peer.js';

interface NodeIdempotencyState {
  readonly storage: RedisStorageAdapter;
  readonly idempotency: Idempotency;
}

/**
 * @node-idempotency/core with @node-idempotency/storage-adapter-redis, through the documented core flow:
 * `onRequest` before the business logic (a returned response is a replay), `onResponse` after it.
 *
 * The Redis adapter builds its own node-redis 4 client from `RedisClientOptions` (it accepts no client), so
 * it gets the URL. `inProgressStrategy.wait` stays false (the default): a duplicate that finds the key in
 * progress gets `REQUEST_IN_PROGRESS`, like our `inFlight: 'raise'`. The in-progress record is written with the
 * same `cacheTTLMS` as the result (24 h by default) and cannot be released, so there is no shorter window after
 * which a duplicate may take over.
 */
export class NodeIdempotencyPeer extends SetUpPeer<NodeIdempotencyState> {
  readonly name = '@node-idempotency/core';
  readonly capabilities = {
    atomicClaim: true,
    inProgressExpiry: InProgressExpiry.RecordTtl,
    payloadCheck: true,
    ownerCheckedComplete: false,
    storesBeforeReturning: true,
    redisClient: 'node-redis 4, created by storage-adapter-redis itself (it takes options, not a client)',
    wiring:
      "new Idempotency(new RedisStorageAdapter({ url }), { cacheTTLMS }); onRequest({ method: 'POST', path, " +
      "headers: { 'idempotency-key' }, body }) then, on a miss, the action and onResponse(req, { body, " +
      'additional: { status: 201 } }). inProgressStrategy.wait = false (default).',
  } as const;

  protected async open(redisUrl: string, settings: PeerSettings): Promise<NodeIdempotencyState> {
    const storage = new RedisStorageAdapter({ url: redisUrl });
    await storage.connect();
    const idempotency = new Idempotency(storage, {
      cacheKeyPrefix: 'bench-node-idempotency',
      cacheTTLMS: settings.resultTtlMs,
    });
    return { storage, idempotency };
  }

  protected async shut({ storage }: NodeIdempotencyState): Promise<void> {
    await storage.disconnect();
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    const { idempotency } = this.state;
    const request: IdempotencyParams = {
      method: 'POST',
      path: '/charges',
      headers: { 'idempotency-key': key },
      body: { ...CHARGE_REQUEST },
    };
    const replayed = await idempotency.onRequest(request);
    if (replayed) {
      if (replayed.error !== undefined) throw replayed.error;
      return replayed.body as Charge;
    }
    let charge: Charge;
    try {
      charge = await action();
    } catch (error) {
      // The README's way to complete a failed request: the error is stored and replayed.
      await idempotency.onResponse(request, { error, additional: { status: 500 } });
      throw error;
    }
    await idempotency.onResponse(request, { body: charge, additional: { status: 201 } });
    return charge;
  }
}
