/** What the checks after the traffic share: the stack, the plan, its outcomes, and the problems found. */
import { DEMO_TENANTS } from '../demo-tenants.js';
import type { ProviderCharge, Stack } from '../stack/stack.js';
import type { ClientOutcome } from './chaos-http.js';
import type { Payment, PlannedOrder } from './chaos-plan.js';
import type { ResolvedChaosOptions } from './chaos-report.js';
import type { OrderOutcome } from './chaos-traffic.js';

/** What a problem is about: the report keeps the first few of each, so one kind cannot hide the others. */
export type ProblemKind = 'payment' | 'order' | 'applied' | 'invoice';

/** The first problems found (5 of each kind at most), for the report. */
export class Problems {
  readonly list: string[] = [];
  private readonly counts = new Map<ProblemKind, number>();

  add(kind: ProblemKind, text: string): void {
    const count = this.counts.get(kind) ?? 0;
    this.counts.set(kind, count + 1);
    if (count < 5) this.list.push(text);
  }
}

/** A payment that was sent, and what its clients ended with. */
export interface SentPayment {
  readonly payment: Payment;
  readonly clients: readonly ClientOutcome[];
}

/** What the checks share: the stack, the run's options, the plan and its outcomes. */
export interface VerifyContext {
  readonly stack: Stack;
  readonly options: ResolvedChaosOptions;
  readonly orders: readonly PlannedOrder[];
  readonly outcomes: readonly OrderOutcome[];
  readonly aborted: () => boolean;
  readonly problems: Problems;
}

/** The key payments hands the provider for `payment`. */
export const providerKey = (p: Pick<Payment, 'tenant' | 'key'>): string =>
  `payment.charge.${DEMO_TENANTS[p.tenant].tenantId.replaceAll('-', '')}.${p.key}`;

/** Runs `check` on every item, 16 at a time, until the run is aborted. */
export async function eachConcurrently<T>(
  items: readonly T[],
  aborted: () => boolean,
  check: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!aborted() && next < items.length) await check(items[next++] as T);
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
}

/** Looks up the provider charges made under a payment's provider key (none: an empty list). */
export function chargesOfPayment(
  charges: readonly ProviderCharge[],
): (payment: Pick<Payment, 'tenant' | 'key'>) => readonly ProviderCharge[] {
  const byKey = new Map<string, ProviderCharge[]>();
  for (const charge of charges)
    byKey.set(charge.idempotencyKey, [...(byKey.get(charge.idempotencyKey) ?? []), charge]);
  return (payment) => byKey.get(providerKey(payment)) ?? [];
}
