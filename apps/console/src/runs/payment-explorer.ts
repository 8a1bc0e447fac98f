/**
 * The explorer's payment as a one-row scenario, so the engine runs it like any row (a clean stack, the live
 * diagram, the client's calls recorded) and the trace is read only from what the services publish: their journals
 * (`/__requests`), the provider's ledger, the order through the gateway, and the coordinators' spans.
 */
import {
  LOSE_ANSWER_ONCE,
  defineScenario,
  type HttpResult,
  type JournalEntry,
  type RequestEntry,
  type Scenario,
  type StepContext,
} from '@retry-safe/scenarios';
import type { CollectedSpan } from '@retry-safe/testing';
import type { AttemptView, OrderView, PaymentRequestBody, PaymentTrace, RecordView } from './console-api.js';

/** The routes of a payment's hops; the order's own creation (set-up) is not part of its trace. */
const PAYMENT_ROUTES = ['/v1/orders/:orderId/payments', '/v1/payments', '/v1/charges'];

/** What the services' spans say of the record, by the coordinator's outcome. */
const RECORD_BY_OUTCOME: Readonly<Record<string, { before: string; after: string }>> = {
  executed: { before: 'no record: claimed by this attempt', after: 'completed, answer stored' },
  replayed: { before: 'completed', after: 'completed, stored answer replayed' },
  in_progress: { before: 'in progress (another attempt holds it)', after: 'unchanged' },
  key_reuse: { before: 'completed for another request', after: 'unchanged' },
  unprotected: { before: 'unreadable (store down)', after: 'none: the action ran unprotected' },
  lease_lost: { before: 'claimed by this attempt', after: 'claim lost while the action ran' },
};

/** Where the explorer reads what it shows besides the engine's target. */
export interface ExplorerSources {
  /** The spans exported since the payment began. */
  spans(): readonly CollectedSpan[];
  /** The order a key paid before (a second payment with the key pays the same order, so it can be replayed). */
  readonly orders: Map<string, string>;
}

/** One explorer payment as a scenario of one row, whose data is the payment's trace. */
export function explorerScenario(body: PaymentRequestBody, sources: ExplorerSources): Scenario<PaymentTrace> {
  const lost = [body.loseAfterPayments && 'after payments', body.loseAfterOrders && 'after orders'].filter(
    (part): part is string => typeof part === 'string',
  );
  const design = `${body.amount} EUR, key ${body.key}${lost.length === 0 ? '' : `, answer lost ${lost.join(' and ')}`}`;
  return defineScenario<PaymentTrace>({
    name: 'explorer',
    title: 'one payment of your own',
    lesson: 'What one payment did at every hop.',
    columns: ['payment', 'answer', 'provider charges'],
    rows: [
      {
        design,
        expected: ['', ''],
        run: async (ctx) => {
          const trace = await pay(ctx, body, sources);
          return { cells: [describe(trace.answer), String(trace.charges.length)], data: trace };
        },
      },
    ],
  });
}

async function pay(
  ctx: StepContext,
  body: PaymentRequestBody,
  sources: ExplorerSources,
): Promise<PaymentTrace> {
  const orderId = sources.orders.get(body.key) ?? (await ctx.newOrder('EUR', body.amount));
  sources.orders.set(body.key, orderId);
  const orderBefore = orderView(await ctx.readOrder(orderId));
  if (body.loseAfterPayments) {
    ctx.step("payments' answer to orders will be lost once");
    await ctx.target.setFaults('payments', [LOSE_ANSWER_ONCE.payments]);
  }
  if (body.loseAfterOrders) {
    ctx.step("orders' answer to the gateway will be lost once");
    await ctx.target.setFaults('orders', [LOSE_ANSWER_ONCE.orders]);
  }
  ctx.step(`paying ${body.amount} EUR with key ${body.key}`);
  // The order's creation ran the orders' coordinator too: only the spans from here on are the payment's.
  const sentAt = Date.now();
  const res = await ctx.pay({ key: body.key, orderId, amount: body.amount, currency: 'EUR' });
  const orderAfter = orderView(await ctx.readOrder(orderId));
  ctx.step('reading the journals, the ledger and the spans');
  const journal = (
    await Promise.all(
      (['gateway', 'orders', 'payments', 'provider'] as const).map((s) => ctx.target.journal(s)),
    )
  ).flat();
  // The spans leave the services in batches every 50 ms.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const ledger = await ctx.target.charges();
  return {
    key: body.key,
    orderId,
    answer: {
      status: res.status,
      ...(typeof res.body?.code === 'string' ? { code: res.body.code as string } : {}),
      replayed: res.headers['idempotent-replayed'] === 'true',
    },
    attempts: attempts(journal),
    records: records(sources.spans(), sentAt),
    orderBefore,
    orderAfter,
    charges: ledger.charges
      .filter((charge) => charge.idempotencyKey.endsWith(body.key))
      .map(({ id, amount, currency }) => ({ id, amount, currency })),
  };
}

/** Every request of the payment's hops, in the order they arrived. */
function attempts(journal: readonly JournalEntry[]): AttemptView[] {
  const requests = journal
    .filter(
      (entry): entry is RequestEntry =>
        entry.service !== 'worker' && entry.method === 'POST' && PAYMENT_ROUTES.includes(entry.route),
    )
    .sort((a, b) => a.startedAt - b.startedAt);
  const first = requests[0]?.startedAt ?? 0;
  return requests.map((entry) => ({
    service: entry.service,
    route: entry.route,
    status: entry.status,
    replayed: entry.replayed,
    atMs: Math.round(entry.startedAt - first),
    durationMs: Math.round(entry.endedAt - entry.startedAt),
  }));
}

/** The idempotency record as each coordinator's span saw it, in time order. */
function records(spans: readonly CollectedSpan[], since: number): RecordView[] {
  return spans
    .filter((span) => span.name === 'idempotency.coordinate' && span.startMs >= since - 1)
    .sort((a, b) => a.startMs - b.startMs)
    .map((span) => {
      const outcome = String(span.attributes['idempotency.outcome'] ?? 'unknown');
      const known = RECORD_BY_OUTCOME[outcome] ?? { before: outcome, after: outcome };
      return {
        service: span.service,
        store: span.attributes['idempotency.transactional'] === true ? 'PostgreSQL' : 'Redis',
        outcome,
        ...known,
      };
    });
}

function orderView(res: HttpResult): OrderView {
  if (res.status !== 200)
    throw new Error(`reading the order answered ${res.status}: ${res.text.slice(0, 200)}`);
  return {
    status: String(res.body.status),
    amount: Number(res.body.amount),
    paidAmount: Number(res.body.paidAmount),
    payments: Array.isArray(res.body.payments) ? res.body.payments.length : 0,
  };
}

function describe(answer: PaymentTrace['answer']): string {
  return `${answer.status}${answer.code === undefined ? '' : ` ${answer.code}`}${answer.replayed ? ' replayed' : ''}`;
}
