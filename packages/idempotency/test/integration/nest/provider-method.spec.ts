import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type pg from 'pg';
import { startRedis } from '@retry-safe/testing';
import type { IdempotencyContext, IdempotentCallSettings, SqlTransaction } from '../../../src/index.js';
import {
  IdempotencyContextArg,
  IdempotencyModule,
  IdempotentMethod,
  outcomeOf,
  type IdempotencyModuleOptions,
  type IdempotentSettingsProvider,
} from '../../../src/nest/index.js';
import { PostgresIdempotencyStore } from '../../../src/postgres/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { freshTable, suitePostgres } from '../postgres-support.js';
import { suiteRedis } from '../support.js';

const redis = suiteRedis(() => startRedis());
const postgres = suitePostgres();

interface Invoice {
  id: string;
  amount: number;
}

/** The settings in force, changed by the test between calls as a scenario's `PUT /__config` would. */
@Injectable()
class InvoiceSettings implements IdempotentSettingsProvider<[Invoice]> {
  current: IdempotentCallSettings = {};
  idempotencySettings(): IdempotentCallSettings {
    return this.current;
  }
}

@Injectable()
class InvoiceSender {
  sent: string[] = [];
  contexts: IdempotencyContext[] = [];

  @IdempotentMethod<[Invoice], { receipt: string }>({
    operation: 'invoice.send',
    key: (invoice) => invoice.id,
    fingerprint: (invoice) => ({ amount: invoice.amount }),
    settingsProvider: InvoiceSettings,
  })
  async send(
    invoice: Invoice,
    @IdempotencyContextArg() context?: IdempotencyContext,
  ): Promise<{ receipt: string }> {
    this.sent.push(invoice.id);
    if (context !== undefined) this.contexts.push(context);
    return { receipt: `r-${invoice.id}-${this.sent.length}` };
  }
}

@Injectable()
class LedgerWriter {
  constructor(readonly pool: pg.Pool) {}

  @IdempotentMethod<[SqlTransaction & pg.PoolClient, string, number], number>({
    operation: 'ledger.credit',
    key: (_client, entryId) => entryId,
    transaction: (client) => client,
  })
  async credit(client: pg.PoolClient, entryId: string, amount: number): Promise<number> {
    await client.query('INSERT INTO ledger_entries (id, amount) VALUES ($1, $2)', [entryId, amount]);
    return amount;
  }
}

async function contextWith(
  options: IdempotencyModuleOptions,
  providers: unknown[],
): Promise<INestApplicationContext> {
  @Module({ imports: [IdempotencyModule.forRoot(options)], providers: providers as never[] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('@IdempotentMethod() on a provider, real Redis', () => {
  let app: INestApplicationContext;
  let sender: InvoiceSender;
  let settings: InvoiceSettings;
  beforeAll(async () => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-method:${randomUUID()}:` });
    app = await contextWith({ store }, [InvoiceSettings, InvoiceSender]);
    sender = app.get(InvoiceSender);
    settings = app.get(InvoiceSettings);
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs once per key, whoever calls: the repeat resolves to the stored result; outcomeOf says which', async () => {
    const first = sender.send({ id: 'inv-1', amount: 10 });
    const again = sender.send({ id: 'inv-1', amount: 10 });
    expect(await first).toEqual({ receipt: 'r-inv-1-1' });
    expect(await again).toEqual({ receipt: 'r-inv-1-1' });
    expect((await outcomeOf(first)).outcome).toBe('executed');
    expect((await outcomeOf(again)).outcome).toBe('replayed');
    expect(sender.sent).toEqual(['inv-1']);
    await expect(sender.send({ id: 'inv-1', amount: 99 })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSE',
    });
    expect(sender.sent).toEqual(['inv-1']);
  });

  it('hands the action its IdempotencyContext: operation, key, fencing token, signal', async () => {
    await sender.send({ id: 'inv-ctx', amount: 1 });
    const context = sender.contexts.at(-1)!;
    expect(context).toMatchObject({ operation: 'invoice.send', key: 'inv-ctx', protected: true });
    expect(context.fencingToken).toBeGreaterThan(0);
    expect(context.signal.aborted).toBe(false);
  });

  it('asks the settings provider on every call: enabled false runs unprotected, every time', async () => {
    settings.current = { enabled: false };
    try {
      const a = sender.send({ id: 'inv-off', amount: 5 });
      const b = sender.send({ id: 'inv-off', amount: 5 });
      await Promise.all([a, b]);
      expect([(await outcomeOf(a)).outcome, (await outcomeOf(b)).outcome]).toEqual([
        'unprotected',
        'unprotected',
      ]);
      expect(sender.sent.filter((id) => id === 'inv-off')).toHaveLength(2);
    } finally {
      settings.current = {};
    }
    // Switched back on, the next call is protected again (and the unprotected runs stored nothing).
    const c = sender.send({ id: 'inv-off', amount: 5 });
    expect((await outcomeOf(c)).outcome).toBe('executed');
  });

  it('a refused call read through outcomeOf rejects there, and nowhere else (no unhandled rejection)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await sender.send({ id: 'inv-reuse', amount: 1 });
      await expect(outcomeOf(sender.send({ id: 'inv-reuse', amount: 2 }))).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSE',
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('outcomeOf refuses a promise no @IdempotentMethod() returned', () => {
    expect(() => outcomeOf(Promise.resolve(1))).toThrow(TypeError);
  });
});

describe('@IdempotentMethod() with the caller’s transaction, real PostgreSQL', () => {
  let app: INestApplicationContext;
  let ledger: LedgerWriter;
  beforeAll(async () => {
    await postgres.pool.query(
      'CREATE TABLE IF NOT EXISTS ledger_entries (id text PRIMARY KEY, amount int NOT NULL)',
    );
    const store = new PostgresIdempotencyStore(postgres.pool, { table: freshTable() });
    await store.migrate();
    app = await contextWith({ store }, [
      { provide: LedgerWriter, useFactory: () => new LedgerWriter(postgres.pool) },
    ]);
    ledger = app.get(LedgerWriter);
  });
  afterAll(async () => {
    await app.close();
  });
  const inTransaction = async <R>(
    work: (client: pg.PoolClient) => Promise<R>,
    commit: boolean,
  ): Promise<R> => {
    const client = await postgres.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return result;
    } finally {
      client.release();
    }
  };
  const rows = async (id: string) =>
    (await postgres.pool.query('SELECT amount FROM ledger_entries WHERE id = $1', [id])).rowCount;

  it('rolled back with the caller: neither the write nor the record stays, and a retry runs again', async () => {
    const id = `e-${randomUUID()}`;
    await inTransaction((client) => ledger.credit(client, id, 7), false);
    expect(await rows(id)).toBe(0);
    const call = await inTransaction(async (client) => {
      const credited = ledger.credit(client, id, 7);
      return { value: await credited, outcome: (await outcomeOf(credited)).outcome };
    }, true);
    expect(call).toEqual({ value: 7, outcome: 'executed' });
    expect(await rows(id)).toBe(1);
  });

  it('committed with the caller: a retry replays and writes nothing', async () => {
    const id = `e-${randomUUID()}`;
    await inTransaction((client) => ledger.credit(client, id, 3), true);
    const again = await inTransaction(async (client) => {
      const credited = ledger.credit(client, id, 3);
      return (await outcomeOf(credited)).outcome;
    }, true);
    expect(again).toBe('replayed');
    expect(await rows(id)).toBe(1);
  });
});
