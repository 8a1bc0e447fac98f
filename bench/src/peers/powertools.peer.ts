import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
// node-redis (the `redis` package re-exports @redis/client 6): CachePersistenceLayer calls
// `set(key, value, { NX: true, EX })` and `del([key])`, node-redis' signatures. ioredis takes positional
// arguments (`set(key, value, 'EX', ttl, 'NX')`), so it does not satisfy the layer's CacheClient as-is.
import { createClient } from 'redis';
import {
  CHARGE_REQUEST,
  InProgressExpiry,
  SetUpPeer,
  type Charge,
  type ChargeAction,
  type PeerSettings,
} from './peer.js';

/** What the wrapped function receives as its first argument, which Powertools hashes. */
interface PowertoolsEvent {
  readonly idempotencyKey: string;
  readonly orderId: string;
  readonly amount: number;
  readonly currency: string;
}

interface PowertoolsState {
  readonly closeClient: () => Promise<void>;
  readonly charge: (event: PowertoolsEvent, action: ChargeAction) => Promise<Charge>;
}

/**
 * @aws-lambda-powertools/idempotency with its Redis `CachePersistenceLayer`, through `makeIdempotent` (its
 * documented wrapper for arbitrary functions, not only Lambda handlers).
 *
 * Outside Lambda there is no Lambda context, and without one the layer writes no in-progress expiry: every
 * concurrent duplicate then looks like an orphan record, takes the orphan lock and runs (it also warns on every
 * call). The docs tell users of `makeIdempotent` on a non-handler function to call
 * `config.registerLambdaContext(context)`; the layer only reads `getRemainingTimeInMillis()` from it, so this
 * adapter registers a stand-in whose remaining time is the in-progress window (the equivalent of a lease).
 */
export class PowertoolsPeer extends SetUpPeer<PowertoolsState> {
  readonly name = '@aws-lambda-powertools/idempotency';
  readonly capabilities = {
    atomicClaim: true,
    inProgressExpiry: InProgressExpiry.Lease,
    payloadCheck: false,
    ownerCheckedComplete: false,
    storesBeforeReturning: true,
    redisClient: 'node-redis 6 (@redis/client), its documented client; ioredis does not fit CacheClient',
    wiring:
      'makeIdempotent(fn, { persistenceStore: new CachePersistenceLayer({ client }), config }) with ' +
      "eventKeyJmesPath 'idempotencyKey', no local cache, no payloadValidationJmesPath (see below). " +
      'Deviation: a stand-in Lambda context ({ getRemainingTimeInMillis }) registered with ' +
      'config.registerLambdaContext(), as the docs require for in-progress expiry; its remaining time is the ' +
      'in-progress window. payloadValidationJmesPath is left out because CachePersistenceLayer 2.35 drops the ' +
      'validation hash when it completes a record, so every replay would fail with IdempotencyValidationError.',
  } as const;

  protected async open(redisUrl: string, settings: PeerSettings): Promise<PowertoolsState> {
    const client = createClient({ url: redisUrl });
    client.on('error', (error: unknown) => console.error(`${this.name}: redis client error`, error));
    await client.connect();

    const config = new IdempotencyConfig({
      eventKeyJmesPath: 'idempotencyKey',
      // No payloadValidationJmesPath: the cache layer's completing SET writes status, expiry and data but not the
      // validation hash, so with it every replay throws IdempotencyValidationError (checked against 2.35.0).
      throwOnNoIdempotencyKey: true,
      expiresAfterSeconds: Math.ceil(settings.resultTtlMs / 1000),
    });
    // The only member of a Lambda context the idempotency utility reads (see the class comment).
    config.registerLambdaContext({ getRemainingTimeInMillis: () => settings.inProgressMs });

    const charge = makeIdempotent(async (_event: PowertoolsEvent, action: ChargeAction) => action(), {
      persistenceStore: new CachePersistenceLayer({ client }),
      config,
      keyPrefix: 'bench-powertools',
    });
    return { closeClient: () => client.close(), charge };
  }

  protected async shut({ closeClient }: PowertoolsState): Promise<void> {
    await closeClient();
  }

  async execute(key: string, action: ChargeAction): Promise<Charge> {
    return this.state.charge({ idempotencyKey: key, ...CHARGE_REQUEST }, action);
  }
}
