import { describe, expect, it } from '@jest/globals';
import { ProviderErrorCode } from '../../src/common/provider-errors.js';
import { IdempotentLedger } from '../../src/ledger/idempotent-ledger.js';

interface Params {
  amount: number;
  currency: string;
  note?: string;
}

const ledger = (dedup: boolean) =>
  new IdempotentLedger<Params>({
    idPrefix: 'ch_',
    dedup,
    fingerprint: ({ amount, currency }) => ({ amount, currency }),
    now: () => new Date('2026-01-01T00:00:00.000Z'),
  });

describe('IdempotentLedger', () => {
  it('records once per key and returns the original entry to duplicates', () => {
    const l = ledger(true);
    const first = l.record('k1', { amount: 100, currency: 'usd' });
    const again = l.record('k1', { amount: 100, currency: 'usd', note: 'not fingerprinted' });

    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.entry).toBe(first.entry);
    expect(first.entry).toEqual({
      id: 'ch_1',
      idempotencyKey: 'k1',
      params: { amount: 100, currency: 'usd' },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(l.snapshot().entries).toHaveLength(1);
  });

  it('refuses a key reused with other fingerprinted parameters, and records nothing', () => {
    const l = ledger(true);
    l.record('k1', { amount: 100, currency: 'usd' });

    expect(() => l.record('k1', { amount: 200, currency: 'usd' })).toThrow(
      expect.objectContaining({ code: ProviderErrorCode.IdempotencyKeyReused }),
    );
    expect(l.snapshot().entries).toHaveLength(1);
  });

  it('with dedup off, records every call even with the same key', () => {
    const l = ledger(false);
    const a = l.record('k1', { amount: 100, currency: 'usd' });
    const b = l.record('k1', { amount: 999, currency: 'eur' });

    expect([a.replayed, b.replayed]).toEqual([false, false]);
    expect(l.snapshot().entries.map((e) => e.id)).toEqual(['ch_1', 'ch_2']);
  });

  it('deduplicates concurrent duplicates: the check and the insert are one synchronous step', async () => {
    const l = ledger(true);
    const attempt = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return l.record('k1', { amount: 100, currency: 'usd' });
    };

    const results = await Promise.all(Array.from({ length: 20 }, attempt));

    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id))).toEqual(new Set(['ch_1']));
  });

  it('counts calls; reset forgets calls and entries but never reuses an id', () => {
    const l = ledger(true);
    l.countCall();
    l.countCall();
    l.record('k1', { amount: 1, currency: 'usd' });
    expect(l.snapshot().calls).toBe(2);

    l.reset();
    expect(l.snapshot()).toEqual({ calls: 0, entries: [] });
    expect(l.record('k1', { amount: 1, currency: 'usd' }).entry.id).toBe('ch_2');
  });
});
