/**
 * What the steps of a scenario row get ({@link StepContext}): the target, progress and notes, and clients whose
 * calls are recorded for the row's diagram (the gateway's orders, payments and invoices routes, payments directly).
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@retry-safe/testing';
import { DEMO_INTERNAL_TOKEN, DEMO_TENANTS } from '../demo-tenants.js';
import type { TimedNote } from './diagram.js';
import { createdOrderId, fixtureOrderBody } from './fixture-orders.js';
import { preciseNow } from '@retry-safe/contracts';
import { send, type ClientCall, type HttpResult } from './http.js';
import type { JournalEntry, ScenarioTarget, Service } from './target.js';

/**
 * How long the provider holds a charge when a scenario needs a request to stay inside the action: long enough for a
 * duplicate to travel gateway -> orders -> payments on a loaded machine, short against the hops' 5 s attempt timeout.
 */
export const HOLD_MS = 2_500;

/** A payment as a client sends it to the gateway. */
export interface PaymentRequest {
  /** @default a new key */
  readonly key?: string;
  /** The order paid (see {@link StepContext.newOrder}). @default a new order */
  readonly orderId?: string;
  /** @default 1999 */
  readonly amount?: number;
  /** @default 'EUR' */
  readonly currency?: string;
}

/** What the steps of a row get: the target, progress reporting, and clients whose calls are recorded. */
export interface StepContext {
  readonly target: ScenarioTarget;
  /** Reports one step (a progress line in the runner). */
  step(message: string): void;
  /** Adds a note to the row's diagram at this moment. */
  note(text: string): void;
  /**
   * `POST /v1/orders` on the gateway, as tenant A: set-up, not drawn; its id. By default an order any payment of
   * these scenarios fits in (the most one payment may be).
   */
  newOrder(currency?: string, amount?: number): Promise<string>;
  /** `POST /v1/orders` on the gateway, as tenant A, drawn: the call a scenario about orders is about. */
  createOrder(request: { key: string; amount: number; currency: string }): Promise<HttpResult>;
  /** `GET /v1/orders/{orderId}` on the gateway, as tenant A. */
  readOrder(orderId: string): Promise<HttpResult>;
  /** `GET /v1/orders?limit=100[&cursor=]` on the gateway, as tenant A (newest first). */
  listOrders(cursor?: string): Promise<HttpResult>;
  /** `POST /v1/orders/{orderId}/payments` on the gateway, as tenant A. */
  pay(request?: PaymentRequest): Promise<HttpResult>;
  /** `POST /v1/payments` straight to payments, as orders sends it (tenant A). */
  payDirectly(request?: PaymentRequest): Promise<HttpResult>;
  /** `POST /v1/orders/{orderId}/invoices` on the gateway, as tenant A. */
  requestInvoice(orderId: string, body: { version: number; email: string }): Promise<HttpResult>;
  /**
   * Keeps what `service`'s journal holds now for the row's diagram: call it before killing the service, whose
   * journal (in memory) dies with it.
   */
  keepJournal(service: Service): Promise<void>;
  /**
   * The first of two payments with one key, held inside the provider call: holds the provider's next charge, pays
   * a new order with the key `<label>-<uuid>` and resolves once that charge is held, with the payment's pending
   * answer (for the second payment to send the same key and order).
   */
  payHeld(label: string): Promise<HeldPayment>;
}

/** A payment {@link StepContext.payHeld} sent: its key and order, and its answer, still pending. */
export interface HeldPayment {
  readonly key: string;
  readonly orderId: string;
  readonly answer: Promise<HttpResult>;
}

/** The body of a payment: its amount and currency, or the defaults. */
function paymentBody(request: PaymentRequest): { amount: number; currency: string } {
  return { amount: request.amount ?? 1999, currency: request.currency ?? 'EUR' };
}

/** The calls a scenario sends to the gateway as tenant A. */
type TenantCalls = Pick<
  StepContext,
  'newOrder' | 'createOrder' | 'readOrder' | 'listOrders' | 'pay' | 'requestInvoice'
>;

/**
 * Tenant A's client of the gateway: its calls are drawn (added to `calls`), except a payment's order, created as
 * set-up and left out of the diagram (its request id is added to `setup`).
 */
function tenantCalls(target: ScenarioTarget, calls: ClientCall[], setup: Set<string>): TenantCalls {
  const auth = { authorization: `Bearer ${DEMO_TENANTS.a.token}` };
  const get = (path: string) => send(`${target.urls.gateway}${path}`, { headers: auth });
  // `POST <path>` with `key` (no Idempotency-Key when undefined), drawn unless it is set-up.
  const post = (path: string, key: string | undefined, body: unknown, drawn = true) =>
    send(
      `${target.urls.gateway}${path}`,
      { method: 'POST', headers: key === undefined ? auth : { ...auth, 'idempotency-key': key }, body },
      drawn ? (call) => calls.push({ service: 'gateway', ...call }) : undefined,
    );
  const newOrder = async (currency?: string, amount?: number): Promise<string> => {
    const fixture = fixtureOrderBody(currency);
    const body = amount === undefined ? fixture : { ...fixture, amount };
    const res = await post('/v1/orders', `order-${randomUUID()}`, body, false);
    const requestId = res.headers['x-request-id'];
    if (requestId !== undefined) setup.add(requestId);
    return createdOrderId(res);
  };
  return {
    newOrder,
    createOrder: ({ key, amount, currency }) => post('/v1/orders', key, { amount, currency }),
    readOrder: (orderId) => get(`/v1/orders/${orderId}`),
    listOrders: (cursor) =>
      get(`/v1/orders?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`),
    pay: async (request = {}) =>
      post(
        `/v1/orders/${request.orderId ?? (await newOrder(request.currency))}/payments`,
        request.key ?? `scenario-${randomUUID()}`,
        paymentBody(request),
      ),
    requestInvoice: (orderId, body) => post(`/v1/orders/${orderId}/invoices`, undefined, body),
  };
}

/** The context of one row: its calls, notes and set-up request ids are collected into the arrays given. */
export function stepContext(
  target: ScenarioTarget,
  calls: ClientCall[],
  notes: TimedNote[],
  setup: Set<string>,
  step: (message: string) => void,
  kept: JournalEntry[] = [],
): StepContext {
  const tenant = tenantCalls(target, calls, setup);
  const context: StepContext = {
    target,
    step,
    ...tenant,
    note: (text) => notes.push({ at: preciseNow(), text }),
    payDirectly: (request = {}) =>
      send(
        `${target.urls.payments}/v1/payments`,
        {
          method: 'POST',
          headers: {
            // Payments trusts the command's tenant only from a caller holding the internal credential.
            authorization: `Bearer ${DEMO_INTERNAL_TOKEN}`,
            'idempotency-key': request.key ?? `scenario-${randomUUID()}`,
          },
          body: {
            tenantId: DEMO_TENANTS.a.tenantId,
            orderId: request.orderId ?? randomUUID(),
            ...paymentBody(request),
          },
        },
        (call) => calls.push({ service: 'payments', ...call }),
      ),
    keepJournal: async (service) => {
      kept.push(...(await target.journal(service)));
    },
    payHeld: async (label) => {
      // The provider holds its next charge for HOLD_MS (a `delay` fault, once).
      await target.setFaults('provider', [
        { method: 'POST', path: '/v1/charges', at: 'before-handler', action: 'delay', ms: HOLD_MS, times: 1 },
      ]);
      const key = `${label}-${randomUUID()}`;
      const orderId = await tenant.newOrder();
      step('first payment: held inside the provider call');
      const answer = context.pay({ key, orderId });
      await chargeIsHeld(target);
      return { key, orderId, answer };
    },
  };
  return context;
}

/** Resolves once the provider's delay rule holds a charge (the one {@link StepContext.payHeld} set). */
async function chargeIsHeld(target: ScenarioTarget): Promise<void> {
  await waitFor(
    'a charge held at the provider',
    async () => {
      const fired = (await target.faults('provider')).rules[0]?.fired;
      if (fired !== 1) throw new Error(`the delay rule fired ${fired ?? 0} times`);
    },
    { timeoutMs: 15_000, intervalMs: 50 },
  );
}
