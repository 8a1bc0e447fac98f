/**
 * Issue 15's scenario on a whole stack (gateway -> orders -> BullMQ -> invoice-worker -> provider-sim), from its
 * shared definition (scenarios/src/definitions/mail-outage.scenario.ts, the table `pnpm demo` prints). The clock
 * is scaled down: the producer's 5 attempts start from {@link JOB_BACKOFF_MS} instead of 1 s (their delays add up
 * to at most 1.5 s instead of 15 s), the outage lasts {@link OUTAGE_MS}, still longer than those, and the worker's
 * cap is {@link CAP_MS}.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectedTable,
  mailOutageScenario,
  runRow,
  stackTarget,
  startStack,
  type MailOutageData,
  type Stack,
} from '@retry-safe/scenarios';
import { rowOf } from '../support/scenario-rows.js';

const JOB_BACKOFF_MS = 100;
const OUTAGE_MS = 4_000;
const CAP_MS = 2_000;
/** One send's budget (the mail client's default 5 s attempt timeout is far above what a healthy send takes). */
const SEND_ALLOWANCE_MS = 1_000;
const scenario = mailOutageScenario({ outageMs: OUTAGE_MS, settleMs: 30_000 });

describe('mail-outage: the provider is down while 10 invoices are requested', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      orders: { INVOICE_JOB_BACKOFF_MS: String(JOB_BACKOFF_MS) },
      worker: { WORKER_BACKOFF_CAP_MS: String(CAP_MS) },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('documents the table the runner prints', () => {
    expect(expectedTable(scenario)).toEqual([
      ['BullMQ default retries', '10', '0', '0'],
      ['retry horizon', '0', '10', '0'],
    ]);
  });

  it('BullMQ default retries: the 5 attempts are spent during the outage, every job failed, no email', async () => {
    const result = await runRow(scenario, rowOf(scenario, 'BullMQ default retries'), stackTarget(stack));
    const data = result.data as MailOutageData;

    expect(result.measured).toEqual(result.expected);
    expect(data.accepted).toBe(10);
    expect(data.emails.emails).toEqual([]);
  }, 120_000);

  it('retry horizon: no job failed, 10 emails after recovery, one per invoice, within a cap of recovery', async () => {
    const result = await runRow(scenario, rowOf(scenario, 'retry horizon'), stackTarget(stack));
    const data = result.data as MailOutageData;

    expect(result.measured).toEqual(result.expected);
    const keys = new Set(data.emails.emails.map((email) => email.idempotencyKey));
    expect(keys.size).toBe(10);
    const latest = Math.max(...data.emails.emails.map((email) => Date.parse(email.createdAt)));
    expect(latest - data.recoveredAt).toBeLessThanOrEqual(CAP_MS + SEND_ALLOWANCE_MS);
    expect(result.diagram).toContain('mail provider back');
  }, 120_000);
});
