import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startRedisReplication, waitFor, type RedisReplicationHandle } from '@retry-safe/testing';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  jsonCodec,
  type IdempotencyEvent,
} from '../../src/index.js';
import { RedisIdempotencyStore, type DurabilityOptions } from '../../src/redis/index.js';
import type { Charge } from './support.js';

// A primary, a replica behind a link the test can hold, and an address that follows the primary. Each test
// crashes (SIGKILL) the primary, so each gets its own pair.
jest.setTimeout(20_000);

let pair: RedisReplicationHandle;
const clients: Redis[] = [];
const stores: RedisIdempotencyStore[] = [];
// The replica's acknowledgement comes over loopback in about a millisecond on an idle machine; a full test run on
// two cores (other workers starting PostgreSQL servers) once delayed it past 300 ms. The bounds are slack for the
// run, not what is tested: the lagging case holds the link, which no bound outwaits.
const durable: DurabilityOptions = { replicas: 1, timeoutMs: 1_000 };

beforeEach(async () => {
  pair = await startRedisReplication();
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const client of clients.splice(0)) client.disconnect();
  await pair.close();
});

/** One instance of a service: its own connection to the primary's address, its store and coordinator. */
async function instance(durability?: DurabilityOptions) {
  const client = pair.client();
  client.on('error', () => undefined);
  clients.push(client);
  const store = new RedisIdempotencyStore(client, {
    keyPrefix: 'failover:',
    commandTimeoutMs: 5_000,
    ...(durability ? { durability } : {}),
  });
  stores.push(store);
  const events: IdempotencyEvent[] = [];
  const coordinator = new IdempotencyCoordinator(store, {
    inFlight: 'raise',
    leaseMs: 10_000,
    onEvent: (e) => events.push(e),
  });
  await client.ping();
  return { client, coordinator, events };
}

/** Resolves once `client` has reconnected and reaches the promoted replica (the old primary is dead). */
async function reconnected(client: Redis): Promise<void> {
  await waitFor('the client to reach the new primary', async () => {
    if (client.status !== 'ready') throw new Error(`status ${client.status}`);
    if (!(await client.info('replication')).includes('role:master')) throw new Error('not a primary');
  });
}

/** The provider: counts charges; the first one is held open until `releaseFirst`, as a slow provider call. */
function provider() {
  let charges = 0;
  let releaseFirst: () => void = () => {};
  const firstGate = new Promise<void>((r) => (releaseFirst = r));
  return {
    get charges() {
      return charges;
    },
    releaseFirst: () => releaseFirst(),
    charge: async (): Promise<Charge> => {
      charges += 1;
      const n = charges;
      if (n === 1) await firstGate;
      return { id: `ch_${n}`, amount: 1000, currency: 'EUR' };
    },
  };
}

const codec = jsonCodec<Charge>();
const charge = (key: string) => ({
  operation: 'payment.charge.t1',
  key,
  ttlMs: 60_000,
  codec,
  fingerprint: 'fp-a',
});

describe('failover: the primary is killed right after a claim, the replica is promoted', () => {
  it('without durability, a claim the replica had not received vanishes and a duplicate runs', async () => {
    const a = await instance();
    const b = await instance();
    const effects = provider();
    pair.holdReplication(); // the replica lags: nothing written from here on reaches it

    const first = a.coordinator
      .coordinateWithOutcome(charge('k-lost'), effects.charge)
      .catch((e: unknown) => e);
    await waitFor('the first owner to act', async () => {
      if (effects.charges !== 1) throw new Error('not yet');
    });
    await pair.failover();
    await reconnected(b.client);

    const second = await b.coordinator.coordinateWithOutcome(charge('k-lost'), effects.charge);

    expect(second.outcome).toBe('executed');
    expect(effects.charges).toBe(2);
    effects.releaseFirst();
    await reconnected(a.client);
    // The first owner's completion finds the duplicate's record: the key keeps one result, but both charged.
    expect(await first).toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
    expect(effects.charges).toBe(2);
  });

  it('with durability, the claim was acknowledged by the replica before the action ran, so it survives', async () => {
    const a = await instance(durable);
    const b = await instance(durable);
    const effects = provider();

    const first = a.coordinator.coordinateWithOutcome(charge('k-kept'), effects.charge);
    await waitFor('the first owner to act', async () => {
      if (effects.charges !== 1) throw new Error('not yet');
    });
    await pair.failover();
    await reconnected(b.client);

    await expect(b.coordinator.coordinate(charge('k-kept'), effects.charge)).rejects.toMatchObject({
      code: IdempotencyErrorCode.InProgress,
    });
    expect(effects.charges).toBe(1);

    effects.releaseFirst();
    await reconnected(a.client);
    const done = await first;
    expect(done).toMatchObject({ outcome: 'executed', value: { id: 'ch_1' } });
    // The new primary has no replica left: the result is stored, and the completion says it is not replicated.
    expect(a.events.map((e) => e.type)).toContain('not_durable');
    await expect(
      b.coordinator.coordinateWithOutcome(charge('k-kept'), effects.charge),
    ).resolves.toMatchObject({
      outcome: 'replayed',
      value: { id: 'ch_1' },
    });
    expect(effects.charges).toBe(1);
  });

  it('with durability and a lagging replica, the claim is given back and refused, and the action does not run', async () => {
    const a = await instance(durable);
    const effects = provider();
    effects.releaseFirst();
    pair.holdReplication();

    const refused = await a.coordinator.coordinate(charge('k-lag'), effects.charge).catch((e: unknown) => e);

    expect(refused).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-lag' });
    expect((refused as Error).cause).toMatchObject({
      name: 'NotReplicatedError',
      acknowledged: 0,
      required: 1,
    });
    expect(effects.charges).toBe(0);
    expect(a.events.map((e) => e.type)).toContain('store_error');

    pair.releaseReplication();
    await pair.waitInSync();
    // Given back at once: not blocked for the 10 s lease (raise mode would answer IDEMPOTENCY_IN_PROGRESS).
    await expect(a.coordinator.coordinateWithOutcome(charge('k-lag'), effects.charge)).resolves.toMatchObject(
      {
        outcome: 'executed',
      },
    );
    await a.coordinator.coordinate(charge('k-lag'), effects.charge);
    expect(effects.charges).toBe(1);
    expect(a.events.map((e) => e.type)).not.toContain('not_durable');
  });
});
