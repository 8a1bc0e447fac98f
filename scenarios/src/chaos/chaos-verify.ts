/** After the traffic: every payment against the provider's ledger, then one clean replay each. */
import { DEMO_TENANTS } from '../demo-tenants.js';
import type { ProviderCharge, Stack } from '../stack/stack.js';
import { payOnce, type ClientOutcome } from './chaos-http.js';
import { HOPS, type Payment } from './chaos-plan.js';

/** What {@link verify} found (a part of the report). */
export interface Verdict {
  charges: number;
  duplicates: number;
  lost: number;
  replayMismatches: number;
  strayCharges: number;
  problems: string[];
}

/** What one payment came to. */
type Finding = 'ok' | 'lost' | 'replay-mismatch';

const providerKey = (p: Payment): string =>
  `payment.charge.${DEMO_TENANTS[p.tenant].tenantId.replaceAll('-', '')}.${p.key}`;

/** Checks every payment against the provider's ledger and replays it once more with the faults off. */
export async function verify(
  stack: Stack,
  payments: readonly Payment[],
  outcomes: readonly ClientOutcome[][],
  providerDedup: boolean,
  aborted: () => boolean,
  log: (line: string) => void,
): Promise<Verdict> {
  log('verifying: provider ledger, then one clean replay per payment');
  for (const service of [...HOPS, 'provider'] as const) await stack.setFaults(service, []);
  const ledger = await stack.providerCharges();
  const byKey = new Map<string, ProviderCharge[]>();
  for (const charge of ledger.charges)
    byKey.set(charge.idempotencyKey, [...(byKey.get(charge.idempotencyKey) ?? []), charge]);

  const verdict: Verdict = {
    charges: ledger.charges.length,
    duplicates: 0,
    lost: 0,
    replayMismatches: 0,
    strayCharges: 0,
    problems: [],
  };
  const problem = (text: string): void => {
    if (verdict.problems.length < 20) verdict.problems.push(text);
  };
  const known = new Set(payments.map(providerKey));
  verdict.strayCharges = ledger.charges.filter((charge) => !known.has(charge.idempotencyKey)).length;
  if (verdict.strayCharges > 0)
    problem(`${verdict.strayCharges} provider charge(s) under keys no payment used`);

  let next = 0;
  const worker = async (): Promise<void> => {
    while (!aborted()) {
      const payment = payments[next++];
      if (payment === undefined) return;
      const charges = byKey.get(providerKey(payment)) ?? [];
      verdict.duplicates += Math.max(0, charges.length - 1);
      if (providerDedup && charges.length > 1) problem(`${payment.key}: ${charges.length} provider charges`);
      const finding = await checkPayment(stack, payment, outcomes[payment.index] ?? [], charges, problem);
      if (finding === 'lost') verdict.lost += 1;
      if (finding === 'replay-mismatch') verdict.replayMismatches += 1;
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
  return verdict;
}

/**
 * One payment: every client got a 201, its Charge names one of the payment's own provider charges, and a replay
 * with the faults off answers the same bytes, marked replayed.
 */
async function checkPayment(
  stack: Stack,
  payment: Payment,
  clients: readonly ClientOutcome[],
  charges: readonly ProviderCharge[],
  problem: (text: string) => void,
): Promise<Finding> {
  const bodies = clients.map((outcome) => outcome.charge);
  const first = bodies[0];
  if (
    first === undefined ||
    bodies.some((body) => body === undefined) ||
    clients.length !== payment.clients
  ) {
    problem(`${payment.key}: no 201 for every client (last: ${clients.map((c) => c.last).join(' | ')})`);
    return 'lost';
  }
  const charge = JSON.parse(first) as { providerChargeId?: string; amount?: number; orderId?: string };
  const own = charges.find((c) => c.id === charge.providerChargeId);
  if (own === undefined || own.amount !== payment.amount || charge.orderId !== payment.orderId) {
    problem(
      `${payment.key}: its Charge names provider charge ${charge.providerChargeId}, not one of its own`,
    );
    return 'lost';
  }
  const replay = await payOnce(stack.urls.gateway, payment);
  const replayText = await replay.text();
  const same =
    replay.status === 201 &&
    replay.headers.get('idempotent-replayed') === 'true' &&
    bodies.every((body) => body === replayText);
  if (same) return 'ok';
  problem(`${payment.key}: the 201s differ (replay ${replay.status} ${replayText.slice(0, 120)})`);
  return 'replay-mismatch';
}
