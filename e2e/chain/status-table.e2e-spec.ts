/**
 * Walks the status table of docs/policy.md (issue 14, item 3): the table is the contract of the payment route,
 * and this suite provokes each of its rows through the whole chain (gateway -> orders -> payments -> provider).
 * For each row it checks the status and `code` the client gets (a 5xx problem passes every hop with its own
 * status and code: 502/504 only when the hop that wrote it got no answer), `Retry-After` where the row promises
 * one, who produced it (a gateway answer never reaches orders) and who retried it, by counting the requests each
 * service received for the client's one call: "orders" means payments got more calls than orders; otherwise no
 * service got more than one.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { newKey, newOrder, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { sendRaw, type RawResponse } from '../support/raw-http.js';
import { DEMO_TENANTS, repoRoot, type FaultRule, type Stack } from '@retry-safe/scenarios';
import { PROBLEM, healthy, paymentTraffic, type PaymentTraffic } from '../failures/failure-helpers.js';
import { recordKeyOf, withRedis } from './chain-helpers.js';
import { useStack } from '../support/stack.js';

/** One row of the table. */
interface Row {
  status: number;
  code: string;
  producedBy: string;
  meaning: string;
  retriedBy: string;
}

/** The rows of the status table in docs/policy.md (the one whose header has "produced by" and "retried by"). */
function statusTable(): Row[] {
  const text = readFileSync(join(repoRoot(), 'docs', 'policy.md'), 'utf8');
  const lines = text.split('\n');
  const header = lines.findIndex((line) =>
    /^\| status \| code \| produced by \| meaning \| retried by \|$/.test(line),
  );
  if (header < 0) throw new Error('docs/policy.md has no status table');
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [status, code, producedBy, meaning, retriedBy] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows.push({
      status: Number(status),
      code: (code ?? '').replaceAll('`', ''),
      producedBy: producedBy ?? '',
      meaning: meaning ?? '',
      retriedBy: retriedBy ?? '',
    });
  }
  return rows;
}

/** What the client got. */
interface Answer {
  status: number;
  body: { code?: string; status?: unknown; detail?: string };
  headers: Record<string, string | undefined>;
}

/** Provokes a row: `setUp` runs before the counting starts, `call` is the client's one counted call. */
interface Driver {
  setUp?: () => Promise<void>;
  call: () => Promise<Answer>;
  tearDown?: () => Promise<void>;
}

const fromRaw = (res: RawResponse): Answer => ({
  status: res.status,
  body: JSON.parse(res.body) as Answer['body'],
  headers: res.headers,
});
const paymentsPath = (): string => `/v1/orders/${randomUUID()}/payments`;
const RAW_HEADERS: Array<[string, string]> = [
  ['Authorization', `Bearer ${DEMO_TENANTS.a.token}`],
  ['Content-Type', 'application/json'],
  ['Idempotency-Key', 'raw-key'],
];
const RAW_BODY = JSON.stringify({ amount: 1999, currency: 'EUR' });
const PROVIDER_CHARGES = { method: 'POST', path: '/v1/charges', at: 'before-handler' } as const;
const PAYMENTS_CALLS = { method: 'POST', path: '/v1/payments', at: 'before-handler' } as const;
/** The gateway's deadline for the 504 row: shorter than the provider's hold. */
const SHORT_DEADLINE_MS = 1_500;
const HOLD_MS = 1_500;

/** Rows this suite does not provoke, and the suite that does. */
const COVERED_ELSEWHERE: Record<string, string> = {
  // Node's parser waits minutes (`requestTimeout`) before it gives up on a slow request.
  '408 request_timeout': 'apps/gateway/test/unit/client-error.spec.ts',
  // Needs an action slower than a lease that is not renewed.
  '409 idempotency_lease_lost': 'e2e/failures/slow-action.e2e-spec.ts and the lease scenario',
};

function drivers(stack: Stack): Record<string, () => Driver> {
  const key = newKey('status');
  // One real order for the rows that pay it twice, created on first use (a payment needs an existing order).
  let order: Promise<string> | undefined;
  const orderId = (): Promise<string> => (order ??= newOrder(stack));
  /** One payment while `service` applies `rule`. */
  const payWithFault = (service: 'payments' | 'provider', rule: FaultRule): Driver => ({
    setUp: () => stack.setFaults(service, [rule]),
    call: () => pay(stack),
  });
  return {
    '201 ': () => ({ call: () => pay(stack) }),
    '400 idempotency_key_missing': () => ({ call: () => pay(stack, { key: null }) }),
    '400 idempotency_key_invalid': () => ({ call: () => pay(stack, { key: 'has:colon' }) }),
    '400 validation_failed': () => ({ call: () => pay(stack, { amount: 0 }) }),
    '400 malformed_request': () => ({
      call: async () =>
        fromRaw(
          await sendRaw(stack.urls.gateway, {
            path: paymentsPath(),
            headers: [...RAW_HEADERS, ['X-Note', 'a\x01b']],
            body: RAW_BODY,
          }),
        ),
    }),
    '401 unauthorized': () => ({ call: () => pay(stack, { tenant: null }) }),
    '409 payment_in_progress': () => {
      let first: Promise<unknown> | undefined;
      return {
        setUp: async () => {
          await holdNextCharge(stack, HOLD_MS);
          first = sendNow(pay(stack, { key, orderId: await orderId() }));
          await chargeIsHeld(stack);
        },
        call: async () => pay(stack, { key, orderId: await orderId() }),
        tearDown: async () => {
          await first;
        },
      };
    },
    '413 payload_too_large': () => ({
      call: () => pay(stack, { body: { amount: 1999, currency: 'EUR', note: 'x'.repeat(20_000) } }),
    }),
    '415 unsupported_media_type': () => ({
      call: () => pay(stack, { contentType: 'text/plain', body: 'amount=1999' }),
    }),
    '431 request_headers_too_large': () => ({
      call: async () =>
        fromRaw(
          await sendRaw(stack.urls.gateway, {
            path: paymentsPath(),
            headers: [...RAW_HEADERS, ['X-Note', 'a'.repeat(20_000)]],
            body: RAW_BODY,
          }),
        ),
    }),
    '422 idempotency_key_reused': () => ({
      setUp: async () => {
        expect((await pay(stack, { key, orderId: await orderId(), amount: 1000 })).status).toBe(201);
      },
      call: async () => pay(stack, { key, orderId: await orderId(), amount: 1500 }),
    }),
    '422 payment_rejected': () =>
      payWithFault('provider', { ...PROVIDER_CHARGES, action: 'status', status: 402, code: 'card_declined' }),
    '500 idempotency_record_corrupt': () => ({
      setUp: async () => {
        expect((await pay(stack, { key, orderId: await orderId() })).status).toBe(201);
        // Keep the record's header (version, state, fence, fingerprint), break the stored Charge.
        await withRedis(stack, async (redis) => {
          const record = recordKeyOf(key);
          const raw = await redis.get(record);
          if (raw === null) throw new Error(`no record ${record}`);
          await redis.set(record, `${raw.slice(0, raw.indexOf('{'))}{"id":`, 'KEEPTTL');
        });
      },
      call: async () => pay(stack, { key, orderId: await orderId() }),
    }),
    '500 internal_error': () =>
      payWithFault('payments', { ...PAYMENTS_CALLS, action: 'status', status: 500, code: 'internal_error' }),
    '502 upstream_unavailable': () => payWithFault('payments', { ...PAYMENTS_CALLS, action: 'drop' }),
    '503 idempotency_store_unavailable': () => ({
      setUp: () => stack.redis.control!.stop(),
      call: () => pay(stack),
      tearDown: async () => {
        await stack.redis.control!.start();
        await healthy(stack, 'payments');
      },
    }),
    '503 provider_unavailable': () =>
      payWithFault('provider', {
        ...PROVIDER_CHARGES,
        action: 'status',
        status: 429,
        code: 'rate_limited',
        retryAfter: 2,
      }),
    '504 upstream_timeout': () => ({
      setUp: async () => {
        await stack.restart('gateway', { GATEWAY_DEADLINE_MS: String(SHORT_DEADLINE_MS) });
        await holdNextCharge(stack, SHORT_DEADLINE_MS * 2);
      },
      call: () => pay(stack),
      // Back to the start-up settings.
      tearDown: () => stack.restart('gateway'),
    }),
  };
}

const rows = statusTable();
const label = (row: Row): string => `${row.status} ${row.code}`;

describe('the status table of docs/policy.md, row by row', () => {
  const stack = useStack();

  it('has a driver here, or a suite elsewhere, for every row, and a row for every driver', () => {
    const table = rows.map(label).sort();
    const known = [...Object.keys(drivers({} as Stack)), ...Object.keys(COVERED_ELSEWHERE)].sort();
    expect(table).toEqual(known);
    expect(rows.length).toBeGreaterThanOrEqual(20);
  });

  it.each(rows.filter((row) => !(label(row) in COVERED_ELSEWHERE)).map((row) => [label(row), row] as const))(
    '%s',
    async (name, row) => {
      const driver = drivers(stack())[name]?.();
      if (driver === undefined) throw new Error(`no driver for ${name}`);
      await driver.setUp?.();
      let answer: Answer;
      let before: PaymentTraffic;
      let after: PaymentTraffic;
      try {
        before = await paymentTraffic(stack());
        answer = await driver.call();
        after = await paymentTraffic(stack());
      } finally {
        await driver.tearDown?.();
      }
      const calls = {
        gateway: after.gateway - before.gateway,
        orders: after.orders - before.orders,
        payments: after.payments - before.payments,
      };

      expect(answer.status).toBe(row.status);
      if (row.code === '') {
        expect(answer.body).toMatchObject({ status: 'succeeded' });
      } else {
        expect(answer.headers['content-type']).toMatch(PROBLEM);
        expect(answer.body).toMatchObject({ status: row.status, code: row.code });
      }
      if (row.meaning.includes('`Retry-After`')) expect(answer.headers['retry-after']).toMatch(/^\d+$/);
      if (row.producedBy === 'gateway') expect(calls.orders).toBe(0);
      if (row.producedBy === 'payments') expect(calls.payments).toBeGreaterThanOrEqual(1);
      if (row.retriedBy.startsWith('orders')) {
        expect(calls.orders).toBe(1);
        expect(calls.payments).toBeGreaterThan(1);
      } else {
        for (const count of Object.values(calls)) expect(count).toBeLessThanOrEqual(1);
      }
    },
  );
});
