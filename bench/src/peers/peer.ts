import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';

/** The result every peer stores and replays: a ~150-byte JSON "charge", as a payment provider would return it. */
export interface Charge {
  readonly id: string;
  readonly orderId: string;
  readonly amount: number;
  readonly currency: string;
  readonly status: 'succeeded';
  readonly providerChargeId: string;
}

/** The protected side effect. Every peer runs the same one; the harness counts how often it actually ran. */
export type ChargeAction = () => Promise<Charge>;

/**
 * The request every peer sees for every call (body, event or fingerprint input, depending on the library), so
 * that each one hashes or compares the same bytes.
 */
export const CHARGE_REQUEST = { orderId: 'ord_7Hq2mXv9Lr4Tz8Kc', amount: 4999, currency: 'EUR' } as const;

// Charge ids only need to be unique in the run: a random prefix and a counter, the same 24 hex digits a
// `randomBytes(12)` would give. Two `randomBytes` calls per action cost 13-15 % of the Node CPU of a throughput
// window (a profile of `pnpm bench:peers`), a cost every library paid alike, which pulled every ratio towards 1.
const chargeIdPrefix = randomBytes(6).toString('hex');
let chargeSerial = 0;
const nextChargeId = (): string => chargeIdPrefix + (chargeSerial++).toString(16).padStart(12, '0');

/** A fresh charge for {@link CHARGE_REQUEST}; ids are unique so the harness can tell which execution produced it. */
export function newCharge(): Charge {
  return {
    id: `ch_${nextChargeId()}`,
    orderId: CHARGE_REQUEST.orderId,
    amount: CHARGE_REQUEST.amount,
    currency: CHARGE_REQUEST.currency,
    status: 'succeeded',
    providerChargeId: `pi_${nextChargeId()}`,
  };
}

/** How a library bounds the life of an in-progress record whose owner never finishes. */
export const InProgressExpiry = {
  /** A lease independent of the result's TTL: a duplicate may take over once it passes. */
  Lease: 'lease',
  /** Only the record TTL (hours): a crashed owner blocks its key until then. */
  RecordTtl: 'record-ttl',
  /** No in-progress record at all: nothing stops a concurrent duplicate. */
  None: 'none',
} as const;

/** One of {@link InProgressExpiry}'s values. */
export type InProgressExpiry = (typeof InProgressExpiry)[keyof typeof InProgressExpiry];

/**
 * What a library can and cannot do, so the table states a missing capability instead of leaving a cell out.
 */
export interface PeerCapabilities {
  /** The reservation is one atomic step (e.g. `SET NX`, a Lua script), not a GET followed by a SET. */
  readonly atomicClaim: boolean;
  /** How an in-progress record ends if its owner never completes it. */
  readonly inProgressExpiry: InProgressExpiry;
  /** A retry with the same key but a different request is detected instead of being given the stored result. */
  readonly payloadCheck: boolean;
  /** The completing write checks that the writer still owns the key, so a stale owner cannot overwrite. */
  readonly ownerCheckedComplete: boolean;
  /** The result is stored before the caller gets it (false: written in the background after responding). */
  readonly storesBeforeReturning: boolean;
  /** The Redis client the library is used with, and why. */
  readonly redisClient: string;
  /** How the benchmark wires the library, including every deviation from its documented use. */
  readonly wiring: string;
}

/** Settings a peer instance is created with. */
export interface PeerSettings {
  /**
   * How long an in-progress record may live before a duplicate may take over, in the library's own terms (lease,
   * Lambda remaining time). Ignored by libraries whose {@link PeerCapabilities.inProgressExpiry} is not `lease`.
   */
  readonly inProgressMs: number;
  /** Lifetime of a stored result. */
  readonly resultTtlMs: number;
}

/**
 * One idempotency library under test, wrapped so the harness can drive every library the same way.
 *
 * An adapter uses its library the way the library's documentation says (its Redis client, its entry points, its
 * error signalling) and only translates: a key and an action in, the action's (or the replayed) {@link Charge} out.
 */
export interface Peer {
  /** Row label in the table, e.g. `@aws-lambda-powertools/idempotency`. */
  readonly name: string;
  /** What the library can do; the table prints its gaps. */
  readonly capabilities: PeerCapabilities;
  /**
   * Connects the library's Redis client(s) to `redisUrl` (a private server the harness owns) and builds the
   * library's objects with `settings`. Called once, before any other method.
   */
  setup(redisUrl: string, settings: PeerSettings): Promise<void>;
  /**
   * Runs `action` at most as often as the library allows for `key`, and resolves with its result or the stored
   * one. Rejects with the library's own error when it refuses the call (e.g. "in progress").
   *
   * @param key - unique per logical operation; only `[A-Za-z0-9_-]`, so every library accepts it as is.
   */
  execute(key: string, action: ChargeAction): Promise<Charge>;
  /**
   * Resolves once every Redis write the library started in the background has finished. Only libraries that
   * store the result after answering (see {@link PeerCapabilities.storesBeforeReturning}) need it.
   */
  drain?(): Promise<void>;
  /** Closes every connection this peer opened, so the process can exit on its own. */
  close(): Promise<void>;
}

/** Builds a fresh, not yet set up, instance of one peer. */
export type PeerFactory = () => Peer;

/**
 * The shape every adapter shares: `setup` builds one state (the library's clients and objects), `execute` reads
 * it through {@link state} (which refuses use before `setup`), and `close` ends it once. Adapters implement
 * {@link open}, {@link shut} and `execute`.
 */
export abstract class SetUpPeer<State> implements Peer {
  abstract readonly name: string;
  abstract readonly capabilities: PeerCapabilities;
  #state: State | undefined;

  /** Connects the library's client(s) to `redisUrl` and builds its objects with `settings`. */
  protected abstract open(redisUrl: string, settings: PeerSettings): Promise<State>;
  /** Closes what {@link open} opened. */
  protected abstract shut(state: State): Promise<void>;
  abstract execute(key: string, action: ChargeAction): Promise<Charge>;

  async setup(redisUrl: string, settings: PeerSettings): Promise<void> {
    this.#state = await this.open(redisUrl, settings);
  }

  /** The state built by `setup`; throws if it was not called (or the peer is closed). */
  protected get state(): State {
    if (this.#state === undefined) throw new Error(`${this.name}: setup() was not called`);
    return this.#state;
  }

  /** The state, or undefined before `setup` and after `close`. */
  protected get stateIfOpen(): State | undefined {
    return this.#state;
  }

  async close(): Promise<void> {
    const state = this.#state;
    this.#state = undefined;
    if (state !== undefined) await this.shut(state);
  }
}

/** An ioredis client connected to `redisUrl` (connected before it is returned, so set-up errors surface here). */
export async function connectIoredis(redisUrl: string, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(redisUrl, { ...options, lazyConnect: true });
  await client.connect();
  return client;
}
