import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import { IdempotencyErrorCode, type SqlTransaction, type TransactionRunner } from '../../../src/index.js';
import {
  IdempotencyContextArg,
  IdempotencyModule,
  IdempotentMethod,
  outcomeOf,
  type StatementContext,
} from '../../../src/nest/index.js';
import { PostgresIdempotencyStore } from '../../../src/postgres/index.js';
import { ledgerAndStore, suitePostgres } from '../postgres-support.js';
import { appWith } from './nest-apps.js';

// @IdempotentMethod({ inOneStatement, runInTransaction }): the one-statement form on a provider method. The method
// declares its write; a fresh key's write and record are one statement on the injected pool, a repeat goes
// through the claim in a transaction of the injected runner; what start-up and a call refuse.
const postgres = suitePostgres();

const POOL = Symbol('POOL');
const RUN_IN_TRANSACTION = Symbol('RUN_IN_TRANSACTION');

/** The suite's pool and transactions, each counting what it runs. */
@Injectable()
class CountedDatabase {
  statements = 0;
  transactions = 0;
  readonly pool: SqlTransaction = {
    query: (text, values) => {
      this.statements += 1;
      return postgres.pool.query(text, values);
    },
  };
  readonly run: TransactionRunner<pg.PoolClient> = (work) => {
    this.transactions += 1;
    return withTransaction(postgres.pool, work);
  };
}

const databaseProviders = [
  CountedDatabase,
  { provide: POOL, inject: [CountedDatabase], useFactory: (db: CountedDatabase) => db.pool },
  { provide: RUN_IN_TRANSACTION, inject: [CountedDatabase], useFactory: (db: CountedDatabase) => db.run },
];

@Injectable()
class Ledger {
  asks = 0;

  @IdempotentMethod<[string, number], number>({
    operation: 'ledger.credit',
    key: (entryId) => entryId,
    fingerprint: (_entryId, amount) => ({ amount }),
    inOneStatement: POOL,
    runInTransaction: RUN_IN_TRANSACTION,
  })
  async credit(
    entryId: string,
    amount: number,
    @IdempotencyContextArg() context?: StatementContext,
  ): Promise<number> {
    this.asks += 1;
    context!.write({
      ctes: [
        'credited AS (INSERT INTO ledger_one_statement (id, amount) SELECT $1, $2 FROM idempotency_record)',
      ],
      values: [entryId, amount],
    });
    return amount;
  }

  @IdempotentMethod<[string], number>({
    operation: 'ledger.forgetful',
    key: (entryId) => entryId,
    inOneStatement: POOL,
    runInTransaction: RUN_IN_TRANSACTION,
  })
  async forgetful(_entryId: string, @IdempotencyContextArg() _context?: StatementContext): Promise<number> {
    return 1;
  }
}

describe('@IdempotentMethod({ inOneStatement }), real PostgreSQL', () => {
  let store: PostgresIdempotencyStore;
  let app: INestApplicationContext;
  let ledger: Ledger;
  let db: CountedDatabase;
  beforeAll(async () => {
    store = await ledgerAndStore(postgres.pool, 'ledger_one_statement');
    app = await appWith(
      [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
      [...databaseProviders, Ledger],
    );
    ledger = app.get(Ledger);
    db = app.get(CountedDatabase);
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });
  const rows = async (id: string) =>
    (await postgres.pool.query('SELECT amount FROM ledger_one_statement WHERE id = $1', [id])).rowCount;

  it('a fresh key: one statement on the pool, no transaction; a repeat replays through the claim', async () => {
    const id = `e-${randomUUID()}`;
    const before = { statements: db.statements, transactions: db.transactions, asks: ledger.asks };
    await expect(outcomeOf(ledger.credit(id, 5))).resolves.toEqual({
      value: 5,
      outcome: 'executed',
      fencingToken: 1,
    });
    expect([db.statements - before.statements, db.transactions - before.transactions]).toEqual([1, 0]);

    await expect(outcomeOf(ledger.credit(id, 5))).resolves.toEqual({
      value: 5,
      outcome: 'replayed',
      fencingToken: 1,
    });
    expect([db.statements - before.statements, db.transactions - before.transactions]).toEqual([2, 1]);
    expect(ledger.asks - before.asks).toBe(2);
    expect(await rows(id)).toBe(1);
  });

  it('concurrent calls of one key write once, and a reused key is refused', async () => {
    const id = `e-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => outcomeOf(ledger.credit(id, 3))));
    expect(results.filter((r) => r.outcome === 'executed')).toHaveLength(1);
    await expect(ledger.credit(id, 4)).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });
    expect(await rows(id)).toBe(1);
  });

  it('a method that declares no write is refused before anything is written', async () => {
    const before = db.statements;
    await expect(ledger.forgetful(`e-${randomUUID()}`)).rejects.toThrow(
      /Ledger\.forgetful: an inOneStatement method declares its write with context.write\(\) exactly once per call, got 0/,
    );
    expect(db.statements).toBe(before);
  });

  it('inOneStatement without runInTransaction is refused when the app starts, naming the method', async () => {
    @Injectable()
    class Incomplete {
      @IdempotentMethod<[string], number>({ operation: 'x.y', key: (id) => id, inOneStatement: POOL })
      async run(_id: string): Promise<number> {
        return 1;
      }
    }
    await expect(
      appWith(
        [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
        [...databaseProviders, Incomplete],
      ),
    ).rejects.toThrow(/Incomplete\.run: inOneStatement needs runInTransaction/);
  });

  const MISSING = Symbol('MISSING');
  const NOT_A_POOL = Symbol('NOT_A_POOL');
  it.each([
    ['nothing in the app', MISSING, [], 'got nothing'],
    ['something else', NOT_A_POOL, [{ provide: NOT_A_POOL, useValue: { query: 'no' } }], 'got object'],
  ])('an inOneStatement token of %s is refused when the app starts', async (_, token, providers, got) => {
    @Injectable()
    class Poolless {
      @IdempotentMethod<[string], number>({
        operation: 'x.y',
        key: (id) => id,
        inOneStatement: token,
        runInTransaction: RUN_IN_TRANSACTION,
      })
      async run(_id: string): Promise<number> {
        return 1;
      }
    }
    const refusal = appWith(
      [IdempotencyModule.forRoot({ store, closeStoreOnShutdown: false })],
      [...databaseProviders, ...providers, Poolless],
    );
    await expect(refusal).rejects.toMatchObject({ code: IdempotencyErrorCode.InvalidOptions });
    await expect(refusal).rejects.toThrow(
      `@IdempotentMethod() on Poolless.run: inOneStatement ${String(token)} must resolve to a pool ` +
        `(an object with query), ${got}`,
    );
  });
});
