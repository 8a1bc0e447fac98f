/**
 * The chaos run (issue 5): N payments through a whole stack (its own private Redis, two payments replicas) from
 * clients that retry with the same key until they get a final answer, while every hop drops connections at
 * random, the provider loses responses, and a payments process is SIGKILLed and started again a few times.
 * Afterwards every payment is checked against the provider's ledger and replayed once more.
 *
 * Used by `pnpm chaos` (src/cli/chaos.ts) and, smaller, by chaos.e2e-spec.ts. The parts: chaos-plan.ts (payments
 * and fault rules), chaos-http.ts (the retrying client), payments-killer.ts (the kills), chaos-verify.ts (the
 * checks), chaos-report.ts (options, report and its table).
 */
import { startStack, type Stack } from '../stack/stack.js';
import {
  createOrders,
  addCounters,
  countersOf,
  payUntilFinal,
  type ClientOutcome,
  type Counters,
  type RetryPolicy,
} from './chaos-http.js';
import {
  HOPS,
  ROUTES,
  chaosFaultRules,
  planPayments,
  prng,
  type ChaosService,
  type Payment,
} from './chaos-plan.js';
import {
  resolveChaosOptions,
  type ChaosOptions,
  type ChaosReport,
  type PerService,
  type ResolvedChaosOptions,
} from './chaos-report.js';
import { verify, type Verdict } from './chaos-verify.js';
import { PaymentsKiller } from './payments-killer.js';

/**
 * Runs the chaos and returns its report; starts and always closes its own stack. Never throws for what it finds
 * (see `report.ok`), only when the stack cannot start.
 */
export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const resolved = resolveChaosOptions(options);
  const log = options.log ?? (() => {});
  const random = prng(resolved.seed);
  const aborted = (): boolean => options.signal?.aborted === true;
  const planned = planPayments(resolved, random);

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
    // Every payment pays an order of its tenant, created first, before any fault or kill.
    const payments = await createOrders(stack.urls.gateway, planned);
    const rules = chaosFaultRules(resolved);
    for (const service of [...HOPS, 'provider'] as const) await stack.setFaults(service, rules[service]);
    const killer = new PaymentsKiller({
      stack,
      payments: resolved.payments,
      kills: resolved.kills,
      rules: rules.payments,
      random,
      log,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const policy = { timeoutMs: resolved.clientTimeoutMs, random, aborted, attempts: 0 };
    const outcomes = await sendTraffic(stack, payments, killer, resolved, policy, log);
    await killer.settle();
    // The traffic, before the checks below add their own.
    const counters = await trafficCounters(stack, killer.carried);
    const verified = await verify(stack, payments, outcomes, resolved.providerDedup, aborted, log);
    return report(
      resolved,
      payments,
      { attempts: policy.attempts, counters, kills: killer.killed, verified },
      {
        durationMs: Date.now() - startedAt,
        aborted: aborted(),
      },
    );
  } finally {
    await stack.close();
  }
}

/** {@link RetryPolicy} that counts the attempts. */
type CountingPolicy = Omit<RetryPolicy, 'onAttempt'> & { attempts: number };

/** Every payment from its clients, `concurrency` payments at a time, held back where a kill is due. */
async function sendTraffic(
  stack: Stack,
  payments: readonly Payment[],
  killer: PaymentsKiller,
  options: ResolvedChaosOptions,
  policy: CountingPolicy,
  log: (line: string) => void,
): Promise<ClientOutcome[][]> {
  const retry: RetryPolicy = { ...policy, onAttempt: () => (policy.attempts += 1) };
  const outcomes: ClientOutcome[][] = new Array(payments.length);
  const progressStep = Math.max(1, Math.floor(options.payments / 10));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!policy.aborted()) {
      if (next >= payments.length) return;
      if (killer.blocks(next)) {
        await killer.nextKill();
        continue;
      }
      const payment = payments[next++] as Payment;
      killer.onStarted();
      outcomes[payment.index] = await Promise.all(
        Array.from({ length: payment.clients }, () => payUntilFinal(stack.urls.gateway, payment, retry)),
      );
      killer.onAnswered();
      if (killer.answered % progressStep === 0)
        log(`  ${killer.answered}/${options.payments} payments answered`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return outcomes;
}

/** Calls and drops per service, summed over its processes; payments' include those of the killed processes. */
async function trafficCounters(stack: Stack, carried: Counters): Promise<Record<ChaosService, Counters>> {
  const services = ['gateway', 'orders', 'payments', 'provider'] as const;
  const entries = await Promise.all(
    services.map(async (service) => {
      const all = await Promise.all(stack.processes(service).map((p) => countersOf(p.url, ROUTES[service])));
      const sum = all.reduce(addCounters, { calls: 0, drops: 0 });
      return [service, service === 'payments' ? addCounters(sum, carried) : sum] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<ChaosService, Counters>;
}

/** What the run measured, before it becomes the report. */
interface Measured {
  readonly attempts: number;
  readonly counters: Record<ChaosService, Counters>;
  readonly kills: number;
  readonly verified: Verdict;
}

function report(
  options: ResolvedChaosOptions,
  payments: readonly Payment[],
  { attempts, counters, kills, verified }: Measured,
  run: { durationMs: number; aborted: boolean },
): ChaosReport {
  const perService = (pick: (c: Counters) => number): PerService => ({
    gateway: pick(counters.gateway),
    orders: pick(counters.orders),
    payments: pick(counters.payments),
    provider: pick(counters.provider),
  });
  return {
    options,
    payments: payments.length,
    sentTwice: payments.filter((p) => p.clients === 2).length,
    clientAttempts: attempts,
    calls: perService((c) => c.calls),
    drops: perService((c) => c.drops),
    kills,
    ...verified,
    // With provider dedup off, every response the provider lost after charging is one duplicate; the rest were
    // charged for a payments process killed inside the provider call.
    duplicatesByPath: options.providerDedup
      ? undefined
      : {
          lostResponse: counters.provider.drops,
          crash: Math.max(0, verified.duplicates - counters.provider.drops),
        },
    durationMs: run.durationMs,
    ok:
      !run.aborted &&
      (!options.providerDedup || verified.duplicates === 0) &&
      verified.lost === 0 &&
      verified.replayMismatches === 0 &&
      verified.strayCharges === 0,
  };
}
