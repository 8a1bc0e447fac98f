/**
 * The chaos run: N orders through a whole stack (its own private Redis and PostgreSQL, two orders replicas, two
 * payments replicas, the invoice worker), created, paid (some in several payments) and some invoiced by clients
 * that retry with the same key until they get a final answer, while every hop drops connections at random, the
 * provider loses responses, and orders and payments processes are SIGKILLed and started again a few times.
 * Afterwards every payment is checked against the provider's ledger, every order's rows and `paidAmount` against
 * its charges, every invoice against the mail ledger, and every payment and order is replayed once more.
 *
 * Used by `pnpm chaos` (src/cli/chaos.ts), smaller by chaos.e2e-spec.ts, and at a steady rate by `pnpm soak`
 * (src/soak/). The parts: chaos-plan.ts (orders,
 * payments, invoices and fault rules), chaos-http.ts (the retrying clients), chaos-traffic.ts (an order's flow),
 * service-killer.ts (the kills), chaos-verify*.ts (the checks), chaos-report.ts and chaos-table.ts (options,
 * report and its table).
 */
import {
  startStack,
  type ServiceEnv,
  type ServiceName,
  type Stack,
  type StackOptions,
} from '../stack/stack.js';
import { addCounters, countersOf, type Counters } from './chaos-http.js';
import {
  HOPS,
  ROUTES,
  chaosFaultRules,
  planOrders,
  prng,
  type ChaosService,
  type PlannedOrder,
} from './chaos-plan.js';
import {
  chaosPassed,
  resolveChaosOptions,
  type ChaosOptions,
  type ChaosPlanned,
  type ChaosReport,
  type PerService,
  type ResolvedChaosOptions,
} from './chaos-report.js';
import { sendTraffic, type CountingPolicy, type OrderOutcome } from './chaos-traffic.js';
import { verify, type Verdict } from './chaos-verify.js';
import { ServiceKiller } from './service-killer.js';

/**
 * Runs the chaos and returns its report; starts and always closes its own stack. Never throws for what it finds
 * (see `report.ok`), only when the stack cannot start or a killed process does not come back.
 */
export function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  return runChaosWith(options, BURST);
}

/**
 * How a run sends its traffic once the stack is up and the faults are set: the chaos run's burst ({@link BURST})
 * or the soak's steady rate (src/soak/soak-engine.ts). The stack, the faults, the killer and the checks are the
 * same for both.
 */
export interface ChaosDrive {
  /** Settings the drive adds to the services' (e.g. where the gateway serves its metrics), over the run's own. */
  readonly env?: Partial<Record<ServiceName, ServiceEnv>>;
  /** Sends every order of the plan and resolves with what its clients ended with (one per order). */
  send(run: ChaosDriveContext): Promise<OrderOutcome[]>;
}

/** What a {@link ChaosDrive} is handed. */
export interface ChaosDriveContext {
  readonly stack: Stack;
  readonly options: ResolvedChaosOptions;
  readonly orders: readonly PlannedOrder[];
  readonly killer: ServiceKiller;
  readonly policy: CountingPolicy;
  readonly log: (line: string) => void;
}

/** The chaos run's traffic: every order, `concurrency` at a time, held back where a kill is due. */
const BURST: ChaosDrive = {
  send: ({ stack, options, orders, killer, policy, log }) =>
    sendTraffic(stack.urls.gateway, orders, killer, options.concurrency, policy, log),
};

/** {@link runChaos} with the traffic sent by `drive`. */
export async function runChaosWith(options: ChaosOptions, drive: ChaosDrive): Promise<ChaosReport> {
  const resolved = resolveChaosOptions(options);
  const log = options.log ?? (() => {});
  const random = prng(resolved.seed);
  const aborted = (): boolean => options.signal?.aborted === true;
  const orders = planOrders(resolved, random);

  log(
    `starting a stack: 2 orders and 2 payments replicas, provider dedup ${resolved.providerDedup ? 'on' : 'off'}`,
  );
  const stack = await startStack(stackOptions(resolved, options.logs, drive.env ?? {}));
  const startedAt = Date.now();
  try {
    const rules = chaosFaultRules(resolved);
    for (const service of [...HOPS, 'provider'] as const) await stack.setFaults(service, rules[service]);
    const killer = new ServiceKiller({
      stack,
      units: resolved.orders,
      schedule: killSchedule(resolved),
      routes: ROUTES,
      rules,
      random,
      log,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const policy = { timeoutMs: resolved.clientTimeoutMs, random, aborted, attempts: 0 };
    const outcomes = await drive.send({ stack, options: resolved, orders, killer, policy, log });
    await killer.settle();
    // The traffic, before the checks below add their own.
    const counters = await trafficCounters(stack, killer.carried);
    const verified = await verify({ stack, options: resolved, orders, outcomes, aborted }, log);
    return report(resolved, planned(orders), {
      attempts: policy.attempts,
      counters,
      kills: { payments: killer.kills.get('payments') ?? 0, orders: killer.kills.get('orders') ?? 0 },
      verified,
      durationMs: Date.now() - startedAt,
      aborted: aborted(),
    });
  } finally {
    await stack.close();
  }
}

/** Two orders and two payments replicas and the worker, with the run's settings and the drive's on top. */
function stackOptions(
  options: ResolvedChaosOptions,
  logs: boolean | undefined,
  env: Partial<Record<ServiceName, ServiceEnv>>,
): StackOptions {
  return {
    ordersReplicas: 2,
    paymentsReplicas: 2,
    worker: env.worker ?? true,
    provider: {
      PROVIDER_DEDUP: options.providerDedup ? 'on' : 'off',
      PROVIDER_LATENCY_MS: String(options.providerLatencyMs),
      ...env.provider,
    },
    payments: { IDEMPOTENCY_LEASE_MS: String(options.leaseMs), ...env.payments },
    ...(env.orders === undefined ? {} : { orders: env.orders }),
    ...(env.gateway === undefined ? {} : { gateway: env.gateway }),
    ...(logs === undefined ? {} : { logs }),
  };
}

/** The service of each kill: orders and payments in turn, orders first, until both have their count. */
function killSchedule(options: ResolvedChaosOptions): ServiceName[] {
  const schedule: ServiceName[] = [];
  for (let k = 0; k < Math.max(options.kills, options.ordersKills); k++) {
    if (k < options.ordersKills) schedule.push('orders');
    if (k < options.kills) schedule.push('payments');
  }
  return schedule;
}

function planned(orders: readonly PlannedOrder[]): ChaosPlanned {
  const payments = orders.flatMap((order) => order.payments);
  return {
    orders: orders.length,
    payments: payments.length,
    multiPaymentOrders: orders.filter((order) => order.payments.length > 1).length,
    paidInFull: orders.filter(
      (order) => order.payments.reduce((sum, p) => sum + p.amount, 0) === order.amount,
    ).length,
    overpaying: orders.filter((order) => order.payments.reduce((sum, p) => sum + p.amount, 0) > order.amount)
      .length,
    invoices: orders.filter((order) => order.invoice !== undefined).length,
    sentTwice: [...orders, ...payments].filter((request) => request.clients === 2).length,
  };
}

/** Calls and drops per service, summed over its processes, with those of the killed processes. */
async function trafficCounters(
  stack: Stack,
  carried: ReadonlyMap<ServiceName, Counters>,
): Promise<Record<ChaosService, Counters>> {
  const services = ['gateway', 'orders', 'payments', 'provider'] as const;
  const entries = await Promise.all(
    services.map(async (service) => {
      const all = await Promise.all(
        stack.processes(service).map((p) => countersOf(p.adminUrl, ROUTES[service])),
      );
      const sum = all.reduce(addCounters, carried.get(service) ?? { calls: 0, drops: 0 });
      return [service, sum] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<ChaosService, Counters>;
}

/** What the run measured, before it becomes the report. */
interface Measured {
  readonly attempts: number;
  readonly counters: Record<ChaosService, Counters>;
  readonly kills: ChaosReport['kills'];
  readonly verified: Verdict;
  readonly durationMs: number;
  readonly aborted: boolean;
}

function report(options: ResolvedChaosOptions, plan: ChaosPlanned, measured: Measured): ChaosReport {
  const { counters, verified } = measured;
  const perService = (pick: (c: Counters) => number): PerService => ({
    gateway: pick(counters.gateway),
    orders: pick(counters.orders),
    payments: pick(counters.payments),
    provider: pick(counters.provider),
  });
  const { payments, orders, invoices, problems } = verified;
  return {
    options,
    planned: plan,
    clientAttempts: measured.attempts,
    calls: perService((c) => c.calls),
    drops: perService((c) => c.drops),
    kills: measured.kills,
    payments,
    // With provider dedup off, every response the provider lost after charging is one duplicate; the rest were
    // charged for a payments process killed inside the provider call.
    duplicatesByPath: options.providerDedup
      ? undefined
      : {
          lostResponse: counters.provider.drops,
          crash: Math.max(0, payments.duplicates - counters.provider.drops),
        },
    orders,
    invoices,
    problems,
    durationMs: measured.durationMs,
    ok: !measured.aborted && chaosPassed(options, verified),
  };
}
