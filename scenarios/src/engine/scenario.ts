/**
 * A scenario: a question ("what does a duplicate in flight cost?"), a table of designs (one row each) with the
 * numbers each design must produce, and the steps that measure them on a running stack. The e2e suites run these
 * definitions and assert the measured rows equal the expected ones; the runner (`pnpm scenarios`, `pnpm demo`)
 * prints the same measured tables. One definition, so the documented tables and the tested numbers cannot drift.
 */
import { randomUUID } from 'node:crypto';
import { DEMO_INTERNAL_TOKEN, DEMO_TENANTS } from '../demo-tenants.js';
import { sequenceDiagram, type TimedNote } from './diagram.js';
import { createdOrderId, fixtureOrderBody } from './fixture-orders.js';
import { waitFor } from '@retry-safe/testing';
import { preciseNow, send, type ClientCall, type HttpResult } from './http.js';
import type { FaultSnapshot, JournalEntry, ScenarioTarget, Service } from './target.js';

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
  /** `POST /v1/orders` on the gateway, as tenant A: an order any payment of these scenarios fits in; its id. */
  newOrder(currency?: string): Promise<string>;
  /** `POST /v1/orders/{orderId}/payments` on the gateway, as tenant A. */
  pay(request?: PaymentRequest): Promise<HttpResult>;
  /** `POST /v1/payments` straight to payments, as orders sends it (tenant A). */
  payDirectly(request?: PaymentRequest): Promise<HttpResult>;
  /** `POST /v1/orders/{orderId}/invoices` on the gateway, as tenant A. */
  requestInvoice(orderId: string, body: { version: number; email: string }): Promise<HttpResult>;
  /** Makes the provider hold its next charge for `ms` (a `delay` fault, once). */
  holdNextCharge(ms?: number): Promise<void>;
  /** Resolves once the held charge reached the provider. */
  chargeIsHeld(): Promise<void>;
}

/** What a row's steps measured: its cells (after the design) and the raw data for finer assertions. */
export interface RowMeasure<D> {
  readonly cells: readonly string[];
  readonly data: D;
}

/** One design of a scenario. */
export interface ScenarioRow<D> {
  /** The first cell: the design. */
  readonly design: string;
  /** The cells after the design this design must produce. */
  readonly expected: readonly string[];
  run(ctx: StepContext): Promise<RowMeasure<D>>;
}

/** A scenario definition. */
export interface Scenario<D = unknown> {
  /** `keys`, `chain`...: the runner's argument and the name of `scenarios-out/<name>.md`. */
  readonly name: string;
  /** What happens, in one line. */
  readonly title: string;
  /** What the table teaches. */
  readonly lesson: string;
  /** Column headers, the design's first. */
  readonly columns: readonly string[];
  readonly needs?: {
    /** The invoice worker (`WORKER_URL`). */
    readonly worker?: boolean;
    /** A way to take Redis away (see `ScenarioTarget.redisControl`). */
    readonly redisControl?: boolean;
  };
  readonly rows: ReadonlyArray<ScenarioRow<D>>;
}

/** Declares a scenario (typed rows). */
export function defineScenario<D>(scenario: Scenario<D>): Scenario<D> {
  return scenario;
}

/** The expected table of a scenario, rows of cells (the design first). */
export function expectedTable(scenario: Scenario<unknown>): string[][] {
  return scenario.rows.map((row) => [row.design, ...row.expected]);
}

/** What running one row gave. */
export interface RowResult<D = unknown> {
  readonly design: string;
  /** The expected row (design first). */
  readonly expected: readonly string[];
  /** The measured row (design first), or `undefined` when the row could not run here. */
  readonly measured?: readonly string[];
  /** Why the row could not run here (and how to run it). */
  readonly skipped?: string;
  readonly matches: boolean;
  readonly data?: D;
  /** Mermaid source of what happened. */
  readonly diagram?: string;
  readonly durationMs: number;
}

/** What running a whole scenario gave. */
export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly lesson: string;
  readonly columns: readonly string[];
  readonly rows: readonly RowResult[];
  /** Every row that ran matched, and none was skipped. */
  readonly matches: boolean;
}

/** Options of {@link runRow} and {@link runScenario}. */
export interface RunOptions {
  /** Receives each progress line. */
  onStep?: (line: string) => void;
  /** Draw the row's sequence diagram (reads every journal). @default true */
  diagram?: boolean;
}

/** Why `scenario` cannot run on `target`, or `undefined` when it can. */
export function unmetNeeds(scenario: Scenario<unknown>, target: ScenarioTarget): string | undefined {
  if (scenario.needs?.worker && target.urls.worker === undefined) {
    return 'needs the invoice worker: set WORKER_URL (pnpm stack starts it once built; compose runs it)';
  }
  if (scenario.needs?.redisControl && target.redisControl === undefined) {
    return (
      'needs to take Redis away, which this runner may not do on a stack it does not own. Run `pnpm demo`, or ' +
      'give the commands: REDIS_STOP_CMD="docker compose stop redis" REDIS_START_CMD="docker compose start redis" ' +
      'pnpm scenarios redis-down'
    );
  }
  return undefined;
}

/** Runs one row on a clean target: resets it, runs the steps, reads the journals for the diagram. */
export async function runRow<D>(
  scenario: Scenario<D>,
  row: ScenarioRow<D>,
  target: ScenarioTarget,
  options: RunOptions = {},
): Promise<RowResult<D>> {
  const started = Date.now();
  const expected = [row.design, ...row.expected];
  const unmet = unmetNeeds(scenario, target);
  if (unmet !== undefined) {
    return { design: row.design, expected, skipped: unmet, matches: false, durationMs: 0 };
  }
  await target.reset();
  const calls: ClientCall[] = [];
  const notes: TimedNote[] = [];
  // Request ids of the row's set-up calls (its orders): not part of what the row shows, so not drawn.
  const setup = new Set<string>();
  const ctx = stepContext(target, calls, notes, setup, (message) =>
    options.onStep?.(`[${scenario.name}] ${row.design}: ${message}`),
  );
  const { cells, data } = await row.run(ctx);
  const measured = [row.design, ...cells];
  const matches = measured.length === expected.length && measured.every((cell, i) => cell === expected[i]);
  let diagram: string | undefined;
  if (options.diagram ?? true) diagram = await drawDiagram(target, calls, notes, setup);
  return {
    design: row.design,
    expected,
    measured,
    matches,
    data,
    ...(diagram === undefined ? {} : { diagram }),
    durationMs: Date.now() - started,
  };
}

/** Runs every row of `scenario`, then leaves the target reset. */
export async function runScenario(
  scenario: Scenario<unknown>,
  target: ScenarioTarget,
  options: RunOptions = {},
): Promise<ScenarioResult> {
  const rows: RowResult[] = [];
  for (const row of scenario.rows) rows.push(await runRow(scenario, row, target, options));
  if (unmetNeeds(scenario, target) === undefined) await target.reset();
  return {
    name: scenario.name,
    title: scenario.title,
    lesson: scenario.lesson,
    columns: scenario.columns,
    rows,
    matches: rows.every((row) => row.matches),
  };
}

async function drawDiagram(
  target: ScenarioTarget,
  calls: ClientCall[],
  notes: TimedNote[],
  setup: ReadonlySet<string>,
): Promise<string> {
  const services: Service[] = ['gateway', 'orders', 'payments', 'provider'];
  if (target.urls.worker !== undefined) services.push('worker');
  const journal: JournalEntry[] = [];
  const faults: Partial<Record<Service, FaultSnapshot>> = {};
  await Promise.all(
    services.map(async (service) => {
      const entries = await target.journal(service);
      journal.push(...entries.filter((entry) => !setup.has(entry.requestId)));
      faults[service] = await target.faults(service);
    }),
  );
  return sequenceDiagram({ calls, journal, faults, notes });
}

function stepContext(
  target: ScenarioTarget,
  calls: ClientCall[],
  notes: TimedNote[],
  setup: Set<string>,
  step: (message: string) => void,
): StepContext {
  const tenant = DEMO_TENANTS.a;
  const paymentBody = (request: PaymentRequest) => ({
    amount: request.amount ?? 1999,
    currency: request.currency ?? 'EUR',
  });
  // A payment's order, created through the gateway: set-up, left out of the diagram (its request id is noted).
  const newOrder = async (currency?: string): Promise<string> => {
    const res = await send(`${target.urls.gateway}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'idempotency-key': `order-${randomUUID()}` },
      body: fixtureOrderBody(currency),
    });
    const requestId = res.headers['x-request-id'];
    if (requestId !== undefined) setup.add(requestId);
    return createdOrderId(res);
  };
  return {
    target,
    step,
    newOrder,
    note: (text) => notes.push({ at: preciseNow(), text }),
    pay: async (request = {}) =>
      send(
        `${target.urls.gateway}/v1/orders/${request.orderId ?? (await newOrder(request.currency))}/payments`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tenant.token}`,
            'idempotency-key': request.key ?? `scenario-${randomUUID()}`,
          },
          body: paymentBody(request),
        },
        (call) => calls.push({ service: 'gateway', ...call }),
      ),
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
            tenantId: tenant.tenantId,
            orderId: request.orderId ?? randomUUID(),
            ...paymentBody(request),
          },
        },
        (call) => calls.push({ service: 'payments', ...call }),
      ),
    requestInvoice: (orderId, body) =>
      send(
        `${target.urls.gateway}/v1/orders/${orderId}/invoices`,
        { method: 'POST', headers: { authorization: `Bearer ${tenant.token}` }, body },
        (call) => calls.push({ service: 'gateway', ...call }),
      ),
    holdNextCharge: async (ms = HOLD_MS) => {
      await target.setFaults('provider', [
        { method: 'POST', path: '/v1/charges', at: 'before-handler', action: 'delay', ms, times: 1 },
      ]);
    },
    chargeIsHeld: () => chargeIsHeld(target),
  };
}

/** Resolves once the provider's delay rule holds a charge (the one {@link StepContext.holdNextCharge} set). */
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

/** `201, replayed`-style summary of an answer: status, problem code, replay marker. */
export function describeAnswer(res: HttpResult): string {
  const code = typeof res.body?.code === 'string' ? ` ${res.body.code as string}` : '';
  return `${res.status}${code}`;
}
