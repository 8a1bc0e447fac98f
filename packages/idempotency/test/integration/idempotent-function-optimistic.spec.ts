import { beforeEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import {
  IdempotencyErrorCode,
  makeIdempotentOptimistically,
  type IdempotencyContext,
  type IdempotentCallSettings,
} from '../../src/index.js';
import { useOrdersWorld, type OrdersWorld } from './orders-world.js';

// makeIdempotentOptimistically on PostgreSQL: the function begins its own transactions through its runner; a fresh
// key costs one (the order, then the completed record), a key with a record goes through the claim in a second.
const world = useOrdersWorld();
let w: OrdersWorld;
beforeEach(() => {
  w = world();
});

/** `place(key, amount)`: one order per key, in transactions of a runner that counts them. */
function placeOptimistically() {
  const settings: { current: IdempotentCallSettings } = { current: {} };
  const seen: { transactions: number; contexts: Array<Pick<IdempotencyContext, 'operation' | 'key'>> } = {
    transactions: 0,
    contexts: [],
  };
  const place = makeIdempotentOptimistically(
    w.coordinator,
    async (
      { transaction, key, operation }: IdempotencyContext & { readonly transaction: pg.PoolClient },
      orderKey: string,
      _amount: number,
    ) => {
      seen.contexts.push({ operation, key });
      return w.placeOrder(transaction, orderKey);
    },
    {
      operation: 'orders.place',
      key: (orderKey) => orderKey,
      fingerprint: (_orderKey, amount) => ({ amount }),
      runInTransaction: (work) => {
        seen.transactions += 1;
        return withTransaction(w.pool, work);
      },
      settings: () => settings.current,
    },
  );
  return { place, settings, seen };
}

describe('makeIdempotentOptimistically', () => {
  it('a fresh key: one transaction with the order and its record; a repeat replays the same value', async () => {
    const { place, seen } = placeOptimistically();
    const first = await place('k-fresh', 10);
    expect(first).toEqual({
      value: { id: expect.any(Number), key: 'k-fresh' },
      outcome: 'executed',
      fencingToken: 1,
    });
    expect(seen.transactions).toBe(1);
    expect(seen.contexts).toEqual([{ operation: 'orders.place', key: 'k-fresh' }]);

    await expect(place('k-fresh', 10)).resolves.toEqual({ ...first, outcome: 'replayed' });
    // The repeat's first transaction was rolled back; the claim in the second replayed.
    expect(seen.transactions).toBe(3);
    expect(await w.counts('k-fresh')).toEqual({ orders: 1, records: 1 });
  });

  it('refuses the key reused with another fingerprint, writing nothing more', async () => {
    const { place } = placeOptimistically();
    await place('k-reuse', 10);
    await expect(place('k-reuse', 20)).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });
    expect(await w.counts('k-reuse')).toEqual({ orders: 1, records: 1 });
  });

  it('concurrent calls of one key: one order, every caller the same value', async () => {
    const { place } = placeOptimistically();
    const results = await Promise.all(Array.from({ length: 6 }, () => place('k-race', 10)));
    expect(results.filter((r) => r.outcome === 'executed')).toHaveLength(1);
    expect(new Set(results.map((r) => JSON.stringify(r.value))).size).toBe(1);
    expect(await w.counts('k-race')).toEqual({ orders: 1, records: 1 });
  });

  it('enabled false: the action runs in one transaction, unprotected, without a record', async () => {
    const { place, settings, seen } = placeOptimistically();
    settings.current = { enabled: false };
    await expect(place('k-off', 10)).resolves.toMatchObject({ outcome: 'unprotected', fencingToken: 0 });
    expect(seen.transactions).toBe(1);
    expect(await w.counts('k-off')).toEqual({ orders: 1, records: 0 });
  });

  it("the action's error is rethrown unchanged and leaves nothing", async () => {
    const place = makeIdempotentOptimistically(
      w.coordinator,
      async (_context: IdempotencyContext, _orderKey: string): Promise<never> => {
        throw new Error('out of stock');
      },
      {
        operation: 'orders.place',
        key: (orderKey) => orderKey,
        runInTransaction: (work) => withTransaction(w.pool, work),
      },
    );
    await expect(place('k-fail')).rejects.toThrow('out of stock');
    expect(await w.counts('k-fail')).toEqual({ orders: 0, records: 0 });
  });
});
