import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import {
  IdempotencyErrorCode,
  idempotencyKeyHash,
  type CoordinateRequest,
  type IdempotencyCoordinator,
  type TransactionRunner,
} from '../../src/index.js';
import { recordChannels } from './channel-recorder.js';
import { postgresWorld, suitePostgres } from './postgres-support.js';
import type { Charge, StoreWorld } from './support.js';

// The transactional forms publish on the same channels, with `transactional: true`, on a real PostgreSQL.
const suite = suitePostgres();

const { published, clear, messagesPublished, messages } = recordChannels();

const charge = (n: number): Charge => ({ id: `ch_${n}`, amount: 1000, currency: 'EUR' });

describe('diagnostics channels of the transactional forms (PostgreSQL)', () => {
  let w: StoreWorld;
  let coordinator: IdempotencyCoordinator;
  let key: string;
  let request: CoordinateRequest<Charge>;
  let base: { operation: string; keyHash: string; transactional: boolean };
  const runner: TransactionRunner<pg.PoolClient> = (work) => withTransaction(suite.pool, work);

  beforeEach(async () => {
    w = await postgresWorld(suite.pool);
    coordinator = w.coordinator({ inFlight: 'raise' });
    key = `raw-key-${randomUUID()}`;
    request = w.request(key);
    base = { operation: request.operation, keyHash: idempotencyKeyHash(key), transactional: true };
    clear();
  });
  afterEach(async () => {
    expect(JSON.stringify(published)).not.toContain(key);
    await w.close();
  });

  it('coordinateInTransaction: claimed and stored in the transaction, then replayed', async () => {
    const first = await withTransaction(suite.pool, (client) =>
      coordinator.coordinateInTransaction(client, request, async () => charge(1)),
    );
    const again = await withTransaction(suite.pool, (client) =>
      coordinator.coordinateInTransaction(client, request, async () => charge(2)),
    );
    expect(again).toEqual(first);
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['replayed', { ...base, fencingToken: 1, waited: false }],
    ]);
  });

  it('an action that throws: released; the same key with other parameters: key_reused', async () => {
    await expect(
      withTransaction(suite.pool, (client) =>
        coordinator.coordinateInTransaction(client, request, async () => {
          throw new Error('out of stock');
        }),
      ),
    ).rejects.toThrow('out of stock');
    await withTransaction(suite.pool, (client) =>
      coordinator.coordinateInTransaction(client, request, async () => charge(1)),
    );
    await expect(
      withTransaction(suite.pool, (client) =>
        coordinator.coordinateInTransaction(client, { ...request, fingerprint: 'fp-b' }, async () =>
          charge(3),
        ),
      ),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['released', { ...base, fencingToken: 1, confirmed: true }],
      // The failed call's transaction rolled back, its claim (and token) with it: the next owner gets 1 again.
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['key_reused', { ...base, storedState: 'completed' }],
    ]);
  });

  it('a standalone owner holds the key: in_progress (a transactional call raises)', async () => {
    let finish: () => void = () => {};
    const owner = coordinator.coordinate(
      request,
      () => new Promise<Charge>((r) => (finish = () => r(charge(1)))),
    );
    await messagesPublished('the standalone claim', 1);
    await expect(
      withTransaction(suite.pool, (client) =>
        coordinator.coordinateInTransaction(client, request, async () => charge(2)),
      ),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.InProgress });
    finish();
    await owner;
    expect(messages()).toEqual([
      ['claimed', { ...base, transactional: false, fencingToken: 1, waited: false }],
      ['in_progress', { ...base, retryAfterMs: expect.any(Number), inFlight: 'raise' }],
      ['stored', { ...base, transactional: false, fencingToken: 1, outcome: 'executed', unencodable: false }],
    ]);
  });

  it('the optimistic form: claimed and stored at its one statement; a repeat replays through the claim', async () => {
    const first = await coordinator.coordinateOptimisticallyWithOutcome(runner, request, async () =>
      charge(1),
    );
    const again = await coordinator.coordinateOptimisticallyWithOutcome(runner, request, async () =>
      charge(2),
    );
    expect(first).toMatchObject({ outcome: 'executed', fencingToken: 1 });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['replayed', { ...base, fencingToken: 1, waited: false }],
    ]);
  });
});
