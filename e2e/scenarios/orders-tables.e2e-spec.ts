/**
 * The db-effect, apply-once and outbox tables, run from their shared definitions (the tables the runner prints) on
 * one stack: each row kills orders at a named fault point and starts it again. After each row's equality with the
 * documented one, its numbers are counted again where they live: rows in the orders database, charges in the
 * provider's ledger, emails in the mail ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  APPLY_AMOUNT,
  applyOnceScenario,
  dbEffectScenario,
  expectedTable,
  outboxScenario,
  runRow,
  stackTarget,
  type ApplyOnceData,
  type ApplyPhase,
  type DbEffectData,
  type OutboxData,
  type ScenarioTarget,
} from '@retry-safe/scenarios';
import { rowOf } from '../support/scenario-rows.js';
import { useStack } from '../support/stack.js';

describe('orders tables: killed at its fault points, each design on the same faults', () => {
  let db: pg.Pool | undefined;
  // Before the stack's own afterAll (hooks run in order): the pool ends while its database is still there.
  afterAll(async () => {
    await db?.end();
  });
  const stack = useStack({ worker: true }, { resetEach: false });
  let target: ScenarioTarget;
  const pool = (): pg.Pool => {
    if (db === undefined) throw new Error('no database pool (beforeAll failed?)');
    return db;
  };

  const rows = async <T>(sql: string, values: unknown[]): Promise<T[]> =>
    (await pool().query(sql, values)).rows as T[];
  const count = async (sql: string, values: unknown[]): Promise<number> =>
    Number((await pool().query(sql, values)).rows[0].count);

  beforeAll(() => {
    target = stackTarget(stack());
    db = new pg.Pool({ connectionString: stack().databaseUrl });
  });

  it('document the tables the runner prints', () => {
    expect(expectedTable(dbEffectScenario)).toEqual([
      ['separate store (Redis)', '502 upstream_unavailable', '201, a new order', '2'],
      ['same transaction', '502 upstream_unavailable', '201, replayed', '1'],
    ]);
    expect(expectedTable(applyOnceScenario)).toEqual([
      ['read-then-write', '1 / 2500', '1 / 5000', 'twice'],
      ['unique constraint', '1 / 2500', '1 / 2500', 'once'],
    ]);
    expect(expectedTable(outboxScenario)).toEqual([
      ['after commit, no outbox', '502 upstream_unavailable', 'requested', '0'],
      ['outbox', '502 upstream_unavailable', 'published', '1'],
    ]);
  });

  describe('db-effect: killed between the order commit and the answer, the client retries', () => {
    it.each([
      ['separate store (Redis)', 2],
      ['same transaction', 1],
    ])('%s: %i order row(s) for the key in the database', async (design, orders) => {
      const result = await runRow(dbEffectScenario, rowOf(dbEffectScenario, design), target);
      const { amount, retry, orderIds } = result.data as DbEffectData;

      expect(result.measured).toEqual(result.expected);
      const inDb = await rows<{ id: string }>('SELECT id FROM orders WHERE amount = $1 ORDER BY created_at', [
        amount,
      ]);
      expect(inDb).toHaveLength(orders);
      expect(new Set(inDb.map((row) => row.id))).toEqual(new Set(orderIds));
      // The retry's order is one of them; with the record in Redis the other is the one nobody was told of.
      expect(orderIds).toContain(retry.body.id);
      // The request orders died in is drawn from the gateway's journal (orders' died with it), then the retry.
      expect(result.diagram).toContain('O--xG: no answer (the process died with the request)');
      expect(result.diagram).toContain(`O-->>G: 201${orders === 1 ? ' replayed' : ''}\n`);
    });
  });

  describe('apply-once: killed after the charge, before applying it; one retry, then two racing', () => {
    const charged = async (phase: ApplyPhase) => {
      const paid = await rows<{ paid_amount: string }>('SELECT paid_amount FROM orders WHERE id = $1', [
        phase.orderId,
      ]);
      return {
        paidAmount: Number(paid[0]?.paid_amount),
        chargeRows: await count('SELECT count(*) FROM order_payments WHERE order_id = $1', [phase.orderId]),
        providerCharges: phase.charges,
        answers: phase.retries.map((answer) => answer.status),
      };
    };

    it('read-then-write: one retry applies the Charge once; two racing retries add it twice', async () => {
      const result = await runRow(applyOnceScenario, rowOf(applyOnceScenario, 'read-then-write'), target);
      const { retry, race } = result.data as ApplyOnceData;

      expect(result.measured).toEqual(result.expected);
      expect(await charged(retry)).toEqual({
        paidAmount: APPLY_AMOUNT,
        chargeRows: 1,
        providerCharges: 1,
        answers: [201],
      });
      // One charge row (its primary key holds), but the amount added on each read's word: paid twice over.
      expect(await charged(race)).toEqual({
        paidAmount: 2 * APPLY_AMOUNT,
        chargeRows: 1,
        providerCharges: 1,
        answers: [201, 201],
      });
      expect(race.lost.status).toBe(502);
      expect((await target.charges()).charges).toHaveLength(2);
    });

    it('unique constraint: applied once after one retry and after two racing retries, the same Charge to both', async () => {
      const result = await runRow(applyOnceScenario, rowOf(applyOnceScenario, 'unique constraint'), target);
      const { retry, race } = result.data as ApplyOnceData;

      expect(result.measured).toEqual(result.expected);
      for (const phase of [retry, race]) {
        expect(await charged(phase)).toEqual({
          paidAmount: APPLY_AMOUNT,
          chargeRows: 1,
          providerCharges: 1,
          answers: phase === race ? [201, 201] : [201],
        });
        expect(phase.order.payments.map((payment) => payment.chargeId)).toEqual([phase.retries[0]?.body.id]);
      }
      expect(race.retries[1]?.text).toBe(race.retries[0]?.text);
    });
  });

  describe('outbox: killed after the invoice request committed, before publishing', () => {
    const outboxRows = (orderId: string) =>
      rows<{ published: boolean }>(
        'SELECT published_at IS NOT NULL AS published FROM invoice_outbox WHERE order_id = $1',
        [orderId],
      );
    const requests = (orderId: string) =>
      count('SELECT count(*) FROM invoice_requests WHERE order_id = $1', [orderId]);

    it('after commit, no outbox: the request is recorded, no job, no email (the later invoice is sent)', async () => {
      const result = await runRow(outboxScenario, rowOf(outboxScenario, 'after commit, no outbox'), target);
      const { orderId, emails, later } = result.data as OutboxData;

      expect(result.measured).toEqual(result.expected);
      expect(await requests(orderId)).toBe(1);
      expect(await outboxRows(orderId)).toEqual([]);
      expect(emails).toEqual([]);
      expect([later.res.status, later.emails]).toEqual([202, 1]);
      expect(await outboxRows(later.orderId)).toEqual([{ published: true }]);
    });

    it('outbox: the row committed with the request is published after the restart, one email', async () => {
      const result = await runRow(outboxScenario, rowOf(outboxScenario, 'outbox'), target);
      const { orderId, emails, later } = result.data as OutboxData;

      expect(result.measured).toEqual(result.expected);
      expect(await requests(orderId)).toBe(1);
      expect(await outboxRows(orderId)).toEqual([{ published: true }]);
      expect(emails).toHaveLength(1);
      expect(later.emails).toBe(1);
      // Both invoices, each once, and nothing else in the mail ledger.
      expect((await target.emails()).emails).toHaveLength(2);
    });
  });
});
