/**
 * The chaos run (issue 5): N payments through a whole stack (its own private Redis, two payments replicas) from
 * clients that retry with the same key until they get a final answer, while every hop drops connections at
 * random, the provider loses responses, and a payments process is SIGKILLed and started again a few times.
 * Afterwards every payment is checked against the provider's ledger and replayed once more.
 *
 * Used by `pnpm chaos` (src/cli/chaos.ts) and, smaller, by chaos.e2e-spec.ts.
 */
import { sleep } from '@retry-safe/testing';
import { DEMO_TENANTS } from '../demo-tenants.js';
import type { FaultRule } from '../engine/target.js';
import { startStack, type ServiceName, type Stack } from '../stack/stack.js';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** Payments to make. @default 500 */
  payments?: number;
  /** provider-sim deduplicates by the provider key (`PROVIDER_DEDUP`). @default true */
  providerDedup?: boolean;
  /**
   * Seed of everything the run decides itself: amounts, which payments are sent twice, client backoff, when and
   * which payments process is killed. The services' fault rules roll their own dice (`Math.random`).
   * @default a random seed (printed in the report)
   */
  seed?: number;
  /** Chance that a hop (gateway, orders, payments) drops a connection, before or after its handler. @default 0.2 */
  dropProbability?: number;
  /** Chance that provider-sim loses its response after charging. @default 0.1 */
  lostResponseProbability?: number;
  /** Share of payments sent by two clients at once. @default 0.2 */
  sentTwiceShare?: number;
  /** SIGKILLs of a payments process (each started again at once). @default 3 */
  kills?: number;
  /** Payments in flight at once. @default 16 */
  concurrency?: number;
  /** `IDEMPOTENCY_LEASE_MS`: how long a killed process blocks its key. @default 2000 */
  leaseMs?: number;
  /** `PROVIDER_LATENCY_MS`: keeps calls inside the action long enough for a kill to land there. @default 40 */
  providerLatencyMs?: number;
  /** How long a client retries one payment before it counts as lost. @default 60000 */
  clientTimeoutMs?: number;
  /** Print the services' output. @default false */
  logs?: boolean;
  /** Progress lines. @default none */
  log?: (line: string) => void;
  /** Stops the run early (the stack is still closed). */
  signal?: AbortSignal;
}

/** Per service: the gateway, orders and payments hops and provider-sim. */
export interface PerService {
  gateway: number;
  orders: number;
  payments: number;
  provider: number;
}

/** What {@link runChaos} found. */
export interface ChaosReport {
  readonly options: Required<Omit<ChaosOptions, 'log' | 'signal' | 'logs'>>;
  readonly payments: number;
  readonly sentTwice: number;
  /** Requests the clients sent (first attempts and retries, both clients of a payment sent twice). */
  readonly clientAttempts: number;
  /** Requests that reached each service (the counters of a killed process are read just before the kill). */
  readonly calls: PerService;
  /** Dropped connections per service; for the provider, responses lost after charging. */
  readonly drops: PerService;
  readonly kills: number;
  /** Charges in the provider's ledger. */
  readonly charges: number;
  /** Provider charges beyond the first, over all payments. */
  readonly duplicates: number;
  /**
   * With provider dedup off, where the duplicates came from: every response the provider lost after charging is
   * one (the retry charges again); the rest are charges made for a payments process that was killed inside the
   * provider call.
   */
  readonly duplicatesByPath: { lostResponse: number; crash: number } | undefined;
  /** Payments without a 201 for every client, without a provider charge, or whose Charge names no charge of theirs. */
  readonly lost: number;
  /** Payments whose 201s (every client's and the final replay) are not the same bytes. */
  readonly replayMismatches: number;
  /** Provider charges under a key no payment used. */
  readonly strayCharges: number;
  /** The first problems found, for the log. */
  readonly problems: readonly string[];
  readonly durationMs: number;
  /** Duplicates 0 (when provider dedup is on), lost 0, mismatches 0, stray 0. */
  readonly ok: boolean;
}

interface Payment {
  readonly index: number;
  readonly tenant: keyof typeof DEMO_TENANTS;
  readonly key: string;
  readonly orderId: string;
  readonly amount: number;
  readonly currency: string;
  readonly clients: 1 | 2;
}

/** What one client ended with. */
interface ClientOutcome {
  /** The 201's body, or undefined when the client gave up or got another final answer. */
  readonly charge: string | undefined;
  readonly last: string;
}

const ROUTES: Record<Exclude<ServiceName, 'worker'>, RegExp> = {
  // A request a `before-handler` fault dropped never reached a route and is counted under its raw path.
  gateway: /^POST \/v1\/orders\/[^/]+\/payments$/,
  orders: /^POST \/v1\/orders\/[^/]+\/payments$/,
  payments: /^POST \/v1\/payments$/,
  provider: /^POST \/v1\/charges$/,
};
const HOPS = ['gateway', 'orders', 'payments'] as const;
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF'] as const;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_BACKOFF_MS = 1_000;

/** mulberry32: a small seeded PRNG, [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A version-4 UUID from the PRNG, so a seed reproduces the order ids too. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Math.floor(random() * 4) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** The drop rules of one hop: before or after the handler, so that together a request is dropped with `p`. */
function hopRules(method: string, path: string, p: number): FaultRule[] {
  const before = p / 2;
  // P(dropped) = before + (1 - before) * after = p.
  const after = before >= 1 ? 0 : (p - before) / (1 - before);
  return [
    { method, path, at: 'before-handler', action: 'drop', probability: before },
    { method, path, at: 'after-handler', action: 'drop', probability: after },
  ];
}

async function putFaults(url: string, rules: readonly FaultRule[]): Promise<void> {
  const res = await fetch(`${url}/__faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  if (res.status !== 200) throw new Error(`PUT ${url}/__faults answered ${res.status}: ${await res.text()}`);
}

interface Counters {
  calls: number;
  drops: number;
}

async function countersOf(url: string, route: RegExp): Promise<Counters> {
  const res = await fetch(`${url}/__faults`);
  if (res.status !== 200) throw new Error(`GET ${url}/__faults answered ${res.status}`);
  const snapshot = (await res.json()) as {
    rules: Array<{ action: string; fired: number }>;
    requests: Record<string, number>;
  };
  return {
    calls: Object.entries(snapshot.requests)
      .filter(([name]) => route.test(name))
      .reduce((sum, [, count]) => sum + count, 0),
    drops: snapshot.rules.filter((rule) => rule.action === 'drop').reduce((sum, rule) => sum + rule.fired, 0),
  };
}

/**
 * Runs the chaos and returns its report; starts and always closes its own stack. Never throws for what it finds
 * (see `report.ok`), only when the stack cannot start.
 */
export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const resolved = {
    payments: options.payments ?? 500,
    providerDedup: options.providerDedup ?? true,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    dropProbability: options.dropProbability ?? 0.2,
    lostResponseProbability: options.lostResponseProbability ?? 0.1,
    sentTwiceShare: options.sentTwiceShare ?? 0.2,
    kills: options.kills ?? 3,
    concurrency: options.concurrency ?? 16,
    leaseMs: options.leaseMs ?? 2_000,
    providerLatencyMs: options.providerLatencyMs ?? 40,
    clientTimeoutMs: options.clientTimeoutMs ?? 60_000,
  };
  const log = options.log ?? (() => {});
  const random = prng(resolved.seed);
  const aborted = (): boolean => options.signal?.aborted === true;

  const payments: Payment[] = Array.from({ length: resolved.payments }, (_, index) => ({
    index,
    tenant: index % 2 === 0 ? 'a' : 'b',
    key: `chaos-${resolved.seed}-${index}`,
    orderId: uuidFrom(random),
    amount: 100 + Math.floor(random() * 99_900),
    currency: CURRENCIES[Math.floor(random() * CURRENCIES.length)] ?? 'EUR',
    clients: random() < resolved.sentTwiceShare ? 2 : 1,
  }));

  log(`starting a stack: 2 payments replicas, provider dedup ${resolved.providerDedup ? 'on' : 'off'}`);
  const stack = await startStack({
    paymentsReplicas: 2,
    provider: {
      PROVIDER_DEDUP: resolved.providerDedup ? 'on' : 'off',
      PROVIDER_LATENCY_MS: String(resolved.providerLatencyMs),
    },
    payments: { IDEMPOTENCY_LEASE_MS: String(resolved.leaseMs) },
    ...(options.logs === undefined ? {} : { logs: options.logs }),
  });
  const startedAt = Date.now();
  try {
    const rules: Record<Exclude<ServiceName, 'worker'>, FaultRule[]> = {
      gateway: hopRules('POST', '/v1/orders/*/payments', resolved.dropProbability),
      orders: hopRules('POST', '/v1/orders/*/payments', resolved.dropProbability),
      payments: hopRules('POST', '/v1/payments', resolved.dropProbability),
      provider: [
        {
          method: 'POST',
          path: '/v1/charges',
          at: 'after-handler',
          action: 'drop',
          probability: resolved.lostResponseProbability,
        },
      ],
    };
    for (const service of [...HOPS, 'provider'] as const) await stack.setFaults(service, rules[service]);

    // Counters of killed payments processes (theirs die with them), read just before each kill.
    const carried: Counters = { calls: 0, drops: 0 };
    let clientAttempts = 0;
    let started = 0;
    let completed = 0;
    // The payments are cut into kills + 1 segments. Kill k comes once the whole of segment k has started, so it
    // lands among requests in flight (whose retries the other replica serves while the killed one is down);
    // segment k + 1 starts once the killed process is back. So every requested kill happens, mid-traffic.
    const totalKills = Math.min(resolved.kills, Math.max(0, resolved.payments - 1));
    const boundary = (k: number): number => Math.floor((k * resolved.payments) / (totalKills + 1));
    let killsStarted = 0;
    let killed = 0;
    let killing: Promise<void> | undefined;
    let killFailure: unknown;
    const gateWaiters: Array<() => void> = [];
    const openGate = (): void => {
      for (const wake of gateWaiters.splice(0)) wake();
    };
    options.signal?.addEventListener('abort', openGate, { once: true });

    const kill = async (): Promise<void> => {
      const processes = stack.processes('payments');
      const target = processes[Math.floor(random() * processes.length)];
      if (target === undefined) throw new Error('no payments process to kill');
      const before = await countersOf(target.url, ROUTES.payments);
      const inFlight = started - completed;
      await target.kill('SIGKILL');
      carried.calls += before.calls;
      carried.drops += before.drops;
      log(`  killed ${target.name} (SIGKILL) with ${inFlight} payment(s) in flight; starting it again`);
      await sleep(100 + Math.floor(random() * 400));
      await target.start();
      await putFaults(target.url, rules.payments);
      killed += 1;
      openGate();
    };
    const maybeKill = (): void => {
      if (killing !== undefined || killsStarted >= totalKills || started < boundary(killsStarted + 1)) return;
      killsStarted += 1;
      killing = kill()
        .catch((error: unknown) => {
          killFailure ??= error;
          killed = totalKills;
          openGate();
        })
        .finally(() => {
          killing = undefined;
          maybeKill();
        });
    };

    const client = async (payment: Payment): Promise<ClientOutcome> => {
      const url = `${stack.urls.gateway}/v1/orders/${payment.orderId}/payments`;
      const body = JSON.stringify({ amount: payment.amount, currency: payment.currency });
      const deadline = Date.now() + resolved.clientTimeoutMs;
      let last = 'no attempt';
      for (let attempt = 1; !aborted(); attempt++) {
        clientAttempts += 1;
        let retryAfterMs = 0;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${DEMO_TENANTS[payment.tenant].token}`,
              'content-type': 'application/json',
              'idempotency-key': payment.key,
            },
            body,
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const text = await res.text();
          last = `${res.status} ${text.slice(0, 200)}`;
          if (res.status === 201) return { charge: text, last };
          // A 4xx other than 409 is final: the client must not retry it unchanged.
          if (res.status < 500 && res.status !== 409) return { charge: undefined, last };
          retryAfterMs = Number(res.headers.get('retry-after') ?? '0') * 1000;
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause;
          last = `network error ${cause?.code ?? (error as Error).message}`;
        }
        if (Date.now() > deadline) break;
        const backoff = Math.min(MAX_BACKOFF_MS, 50 * 2 ** (attempt - 1)) * (0.5 + random() / 2);
        await sleep(Math.min(MAX_BACKOFF_MS, Math.max(backoff, retryAfterMs)));
      }
      return { charge: undefined, last };
    };

    const outcomes: ClientOutcome[][] = new Array(payments.length);
    let next = 0;
    const progressStep = Math.max(1, Math.floor(resolved.payments / 10));
    const worker = async (): Promise<void> => {
      while (!aborted()) {
        if (next >= payments.length) return;
        if (killed < totalKills && next >= boundary(killed + 1)) {
          await new Promise<void>((resolve) => gateWaiters.push(resolve));
          continue;
        }
        const payment = payments[next++] as Payment;
        started += 1;
        maybeKill();
        outcomes[payment.index] = await Promise.all(
          Array.from({ length: payment.clients }, () => client(payment)),
        );
        completed += 1;
        if (completed % progressStep === 0) log(`  ${completed}/${resolved.payments} payments answered`);
      }
    };
    await Promise.all(Array.from({ length: resolved.concurrency }, () => worker()));
    while (killing !== undefined) await killing;
    // The harness itself failed (a killed process did not come back): no verdict on the system.
    if (killFailure !== undefined) throw killFailure;

    // The traffic, before the checks below add their own.
    const counters = Object.fromEntries(
      await Promise.all(
        (['gateway', 'orders', 'payments', 'provider'] as const).map(async (service) => {
          const all = await Promise.all(
            stack.processes(service).map((p) => countersOf(p.url, ROUTES[service])),
          );
          const sum = all.reduce((a, b) => ({ calls: a.calls + b.calls, drops: a.drops + b.drops }), {
            calls: 0,
            drops: 0,
          });
          if (service === 'payments')
            return [service, { calls: sum.calls + carried.calls, drops: sum.drops + carried.drops }];
          return [service, sum];
        }),
      ),
    ) as Record<keyof PerService, Counters>;

    const verified = await verify(stack, payments, outcomes, resolved.providerDedup, aborted, log);
    const duplicatesByPath = resolved.providerDedup
      ? undefined
      : {
          lostResponse: counters.provider.drops,
          crash: Math.max(0, verified.duplicates - counters.provider.drops),
        };
    const report: ChaosReport = {
      options: resolved,
      payments: payments.length,
      sentTwice: payments.filter((p) => p.clients === 2).length,
      clientAttempts,
      calls: {
        gateway: counters.gateway.calls,
        orders: counters.orders.calls,
        payments: counters.payments.calls,
        provider: counters.provider.calls,
      },
      drops: {
        gateway: counters.gateway.drops,
        orders: counters.orders.drops,
        payments: counters.payments.drops,
        provider: counters.provider.drops,
      },
      kills: killed,
      ...verified,
      duplicatesByPath,
      durationMs: Date.now() - startedAt,
      ok:
        !aborted() &&
        (!resolved.providerDedup || verified.duplicates === 0) &&
        verified.lost === 0 &&
        verified.replayMismatches === 0 &&
        verified.strayCharges === 0,
    };
    return report;
  } finally {
    await stack.close();
  }
}

/** Checks every payment against the provider's ledger and replays it once more with the faults off. */
async function verify(
  stack: Stack,
  payments: readonly Payment[],
  outcomes: readonly ClientOutcome[][],
  providerDedup: boolean,
  aborted: () => boolean,
  log: (line: string) => void,
): Promise<{
  charges: number;
  duplicates: number;
  lost: number;
  replayMismatches: number;
  strayCharges: number;
  problems: string[];
}> {
  log('verifying: provider ledger, then one clean replay per payment');
  for (const service of [...HOPS, 'provider'] as const) await stack.setFaults(service, []);
  const ledger = await stack.providerCharges();
  const byKey = new Map<string, typeof ledger.charges>();
  for (const charge of ledger.charges)
    byKey.set(charge.idempotencyKey, [...(byKey.get(charge.idempotencyKey) ?? []), charge]);
  const providerKey = (p: Payment): string =>
    `payment.charge.${DEMO_TENANTS[p.tenant].tenantId.replaceAll('-', '')}.${p.key}`;

  const problems: string[] = [];
  const problem = (text: string): void => {
    if (problems.length < 20) problems.push(text);
  };
  let duplicates = 0;
  let lost = 0;
  let replayMismatches = 0;
  const known = new Set(payments.map(providerKey));
  const strayCharges = ledger.charges.filter((charge) => !known.has(charge.idempotencyKey)).length;
  if (strayCharges > 0) problem(`${strayCharges} provider charge(s) under keys no payment used`);

  let next = 0;
  const worker = async (): Promise<void> => {
    while (!aborted()) {
      const payment = payments[next++];
      if (payment === undefined) return;
      const charges = byKey.get(providerKey(payment)) ?? [];
      duplicates += Math.max(0, charges.length - 1);
      if (providerDedup && charges.length > 1) problem(`${payment.key}: ${charges.length} provider charges`);
      const clients = outcomes[payment.index] ?? [];
      const bodies = clients.map((outcome) => outcome.charge);
      const first = bodies[0];
      if (
        first === undefined ||
        bodies.some((body) => body === undefined) ||
        clients.length !== payment.clients
      ) {
        lost += 1;
        problem(`${payment.key}: no 201 for every client (last: ${clients.map((c) => c.last).join(' | ')})`);
        continue;
      }
      const charge = JSON.parse(first) as { providerChargeId?: string; amount?: number; orderId?: string };
      const own = charges.find((c) => c.id === charge.providerChargeId);
      if (own === undefined || own.amount !== payment.amount || charge.orderId !== payment.orderId) {
        lost += 1;
        problem(
          `${payment.key}: its Charge names provider charge ${charge.providerChargeId}, not one of its own`,
        );
        continue;
      }
      const replay = await fetch(`${stack.urls.gateway}/v1/orders/${payment.orderId}/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${DEMO_TENANTS[payment.tenant].token}`,
          'content-type': 'application/json',
          'idempotency-key': payment.key,
        },
        body: JSON.stringify({ amount: payment.amount, currency: payment.currency }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const replayText = await replay.text();
      const same =
        replay.status === 201 &&
        replay.headers.get('idempotent-replayed') === 'true' &&
        bodies.every((body) => body === replayText);
      if (!same) {
        replayMismatches += 1;
        problem(`${payment.key}: the 201s differ (replay ${replay.status} ${replayText.slice(0, 120)})`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
  return { charges: ledger.charges.length, duplicates, lost, replayMismatches, strayCharges, problems };
}

/** The table `pnpm chaos` prints. */
export function formatChaosReport(report: ChaosReport): string {
  const o = report.options;
  const pad = (text: string | number, width: number): string => String(text).padStart(width);
  const row = (label: string, values: PerService): string =>
    `${label.padEnd(26)}${pad(values.gateway, 9)}${pad(values.orders, 9)}${pad(values.payments, 10)}${pad(values.provider, 10)}`;
  const line = (label: string, value: string | number, note = ''): string =>
    `${label.padEnd(26)}${pad(value, 9)}${note ? `   ${note}` : ''}`;
  const dedup = o.providerDedup ? 'on' : 'off';
  const duplicatesNote = report.duplicatesByPath
    ? `provider dedup off: lost provider response ${report.duplicatesByPath.lostResponse}, crash ${report.duplicatesByPath.crash}`
    : 'must be 0';
  return [
    `chaos run: seed ${o.seed}, provider dedup ${dedup}, 2 payments replicas, lease ${o.leaseMs} ms, provider latency ${o.providerLatencyMs} ms`,
    `faults: each hop drops p=${o.dropProbability} (half before, half after its handler); the provider loses responses p=${o.lostResponseProbability}; ${o.kills} payments kill(s)`,
    '',
    line('payments', report.payments, `${report.sentTwice} of them sent twice at once`),
    line('client attempts', report.clientAttempts, 'clients retry with the same key until a final answer'),
    `${''.padEnd(26)}${pad('gateway', 9)}${pad('orders', 9)}${pad('payments', 10)}${pad('provider', 10)}`,
    row('calls', report.calls),
    row('drops (provider: lost)', report.drops),
    line('kills', report.kills, 'SIGKILL of a payments process, started again'),
    line('charges', report.charges, `provider ledger, for ${report.payments} payments`),
    line('duplicates', report.duplicates, duplicatesNote),
    line('lost', report.lost, 'must be 0'),
    line(
      'replays differing',
      report.replayMismatches,
      'must be 0: one 201 Charge, identical on every replay',
    ),
    line('stray charges', report.strayCharges, 'must be 0'),
    line('duration', `${(report.durationMs / 1000).toFixed(1)} s`),
    line(
      'result',
      report.ok ? 'OK' : 'FAILED',
      report.ok && !o.providerDedup ? 'nothing lost; the duplicates are what provider dedup off costs' : '',
    ),
    ...(report.problems.length > 0 ? ['', 'problems:', ...report.problems.map((p) => `  ${p}`)] : []),
  ].join('\n');
}
