import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import type pg from 'pg';
import { startRedis, withTransaction } from '@retry-safe/testing';
import type { IdempotencyContext, SqlTransaction, TransactionRunner } from '../../../src/index.js';
import {
  IdempotencyContextArg,
  IdempotencyCoordinator,
  IdempotencyModule,
  IdempotentMethod,
  outcomeOf,
} from '../../../src/nest/index.js';
import { PostgresIdempotencyStore } from '../../../src/postgres/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { ledgerAndStore, suitePostgres } from '../postgres-support.js';
import { appWith } from './nest-apps.js';
import { suiteRedis } from '../support.js';

// @IdempotentMethod({ runInTransaction }): the optimistic form on a provider method, its transaction runner
// injected by token; what start-up refuses; and a second, non-exploring IdempotencyModule.
const redis = suiteRedis(() => startRedis());
const postgres = suitePostgres();

const RUN_IN_TRANSACTION = Symbol('RUN_IN_TRANSACTION');
const NOT_A_RUNNER = Symbol('NOT_A_RUNNER');

type Context = IdempotencyContext & { readonly transaction?: pg.PoolClient };

/** Counts the transactions it runs, on the suite's pool. */
@Injectable()
class CountedTransactions {
  count = 0;
  readonly run: TransactionRunner<pg.PoolClient> = (work) => {
    this.count += 1;
    return withTransaction(postgres.pool, work);
  };
}

@Injectable()
class Ledger {
  readonly contexts: Context[] = [];

  @IdempotentMethod<[string, number], number>({
    operation: 'ledger.credit',
    key: (entryId) => entryId,
    fingerprint: (_entryId, amount) => ({ amount }),
    runInTransaction: RUN_IN_TRANSACTION,
  })
  async credit(entryId: string, amount: number, @IdempotencyContextArg() context?: Context): Promise<number> {
    this.contexts.push(context!);
    await context!.transaction!.query('INSERT INTO ledger_optimistic (id, amount) VALUES ($1, $2)', [
      entryId,
      amount,
    ]);
    return amount;
  }
}

const runnerProvider = {
  provide: RUN_IN_TRANSACTION,
  inject: [CountedTransactions],
  useFactory: (transactions: CountedTransactions) => transactions.run,
};

describe('@IdempotentMethod({ runInTransaction }), real PostgreSQL', () => {
  let store: PostgresIdempotencyStore;
  beforeAll(async () => {
    store = await ledgerAndStore(postgres.pool, 'ledger_optimistic');
  });
  const rows = async (id: string) =>
    (await postgres.pool.query('SELECT amount FROM ledger_optimistic WHERE id = $1', [id])).rowCount;

  describe('a method in transactions of its own', () => {
    let app: INestApplicationContext;
    let ledger: Ledger;
    let transactions: CountedTransactions;
    beforeAll(async () => {
      app = await appWith(
        [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
        [CountedTransactions, runnerProvider, Ledger],
      );
      ledger = app.get(Ledger);
      transactions = app.get(CountedTransactions);
    });
    afterAll(async () => {
      await app.close();
    });

    it('a fresh key: one transaction, the write and its record; a repeat replays and writes nothing', async () => {
      const id = `e-${randomUUID()}`;
      const before = transactions.count;
      const first = ledger.credit(id, 5);
      await expect(outcomeOf(first)).resolves.toEqual({ value: 5, outcome: 'executed', fencingToken: 1 });
      expect(transactions.count - before).toBe(1);

      const again = ledger.credit(id, 5);
      await expect(outcomeOf(again)).resolves.toEqual({ value: 5, outcome: 'replayed', fencingToken: 1 });
      expect(await rows(id)).toBe(1);
    });

    it('the context carries the transaction, the operation and the key', async () => {
      const id = `e-${randomUUID()}`;
      const before = ledger.contexts.length;
      await ledger.credit(id, 2);
      const seen = ledger.contexts.slice(before);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ operation: 'ledger.credit', key: id, protected: true });
      expect(typeof seen[0]!.transaction!.query).toBe('function');
    });

    it('refuses the key reused with another amount, writing nothing more', async () => {
      const id = `e-${randomUUID()}`;
      await ledger.credit(id, 1);
      await expect(ledger.credit(id, 9)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSE' });
      expect(await rows(id)).toBe(1);
    });
  });

  describe('start-up refusals, naming the method', () => {
    it('both transaction and runInTransaction on one method', async () => {
      @Injectable()
      class Both {
        @IdempotentMethod<[SqlTransaction, string], number>({
          operation: 'both.run',
          key: (_client, id) => id,
          transaction: (client) => client,
          runInTransaction: RUN_IN_TRANSACTION,
        })
        async run(_client: SqlTransaction, _id: string): Promise<number> {
          return 1;
        }
      }
      await expect(
        appWith(
          [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
          [CountedTransactions, runnerProvider, Both],
        ),
      ).rejects.toMatchObject({
        code: 'IDEMPOTENCY_INVALID_OPTIONS',
        message: expect.stringMatching(/^@IdempotentMethod\(\) on Both\.run: give transaction .* not both$/),
      });
    });

    it.each([
      [
        'a token nothing provides',
        Symbol('MISSING'),
        [],
        /runInTransaction Symbol\(MISSING\) must .* got nothing/,
      ],
      [
        'a token of something else',
        NOT_A_RUNNER,
        [{ provide: NOT_A_RUNNER, useValue: { run: 'no' } }],
        /runInTransaction Symbol\(NOT_A_RUNNER\) must .* got object/,
      ],
    ])('a runInTransaction token of %s', async (_, token, providers, message) => {
      @Injectable()
      class Unrunnable {
        @IdempotentMethod<[string], number>({ operation: 'un.run', key: (id) => id, runInTransaction: token })
        async run(_id: string): Promise<number> {
          return 1;
        }
      }
      const refusal = appWith(
        [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
        [...providers, Unrunnable],
      );
      await expect(refusal).rejects.toMatchObject({ code: 'IDEMPOTENCY_INVALID_OPTIONS' });
      await expect(refusal).rejects.toThrow(
        new RegExp(`^@IdempotentMethod\\(\\) on Unrunnable\\.run: ${message.source}`),
      );
    });
  });

  it('a second module with explore false leaves the methods to the global one', async () => {
    const prefix = `nest-explore:${randomUUID()}:`;
    const redisStore = new RedisIdempotencyStore(redis.client, { keyPrefix: prefix });
    @Module({
      imports: [IdempotencyModule.forRoot({ store: redisStore, isGlobal: false, explore: false })],
      providers: [{ provide: 'FEATURE_COORDINATOR', useExisting: IdempotencyCoordinator }],
      exports: ['FEATURE_COORDINATOR'],
    })
    class FeatureModule {}
    // The feature module last: without explore false, its explorer would wrap the method with its Redis store.
    const app = await appWith(
      [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false }), FeatureModule],
      [CountedTransactions, runnerProvider, Ledger],
    );
    try {
      const id = `e-${randomUUID()}`;
      await expect(outcomeOf(app.get(Ledger).credit(id, 4))).resolves.toMatchObject({ outcome: 'executed' });
      const { rowCount } = await postgres.pool.query(`SELECT 1 FROM ${store.table} WHERE key = $1`, [id]);
      expect(rowCount).toBe(1);
      expect(await redis.client.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
