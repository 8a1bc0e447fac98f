/**
 * The soak's traffic: the chaos run's orders (created, paid, invoiced, every request retried by its clients until
 * a final answer), started at a steady rate instead of as fast as they go, and never held back for a kill: the
 * other replica serves while a killed process is down, as it would in production.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ChaosDriveContext } from '../chaos/chaos-engine.js';
import type { PlannedOrder } from '../chaos/chaos-plan.js';
import { countingRetry, runOrder, type OrderOutcome } from '../chaos/chaos-traffic.js';

/** How the soak paces its orders. */
export interface Pace {
  /** Orders started per second. */
  readonly rate: number;
  /**
   * Orders in flight at most: past it the next waits (the stack has fallen behind; the report's rate shows it),
   * instead of piling up clients that would measure the load generator rather than the services.
   */
  readonly maxInFlight: number;
}

/** How far behind its schedule the pacer may fall before it gives up catching up (no burst after a stall). */
const MAX_LAG_MS = 1_000;

/** Starts every order of the plan at `pace.rate` per second; resolves once all are answered. */
export async function sendPaced(run: ChaosDriveContext, pace: Pace): Promise<OrderOutcome[]> {
  const { stack, orders, killer, policy, log } = run;
  const retry = countingRetry(policy);
  const outcomes: OrderOutcome[] = new Array(orders.length);
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / pace.rate;
  const startedAt = Date.now();
  let due = startedAt;
  let nextProgress = startedAt + 60_000;
  for (const order of orders as readonly PlannedOrder[]) {
    if (policy.aborted()) break;
    const wait = due - Date.now();
    if (wait > 0) await delay(wait);
    while (inFlight.size >= pace.maxInFlight) await Promise.race(inFlight);
    due = Math.max(due + intervalMs, Date.now() - MAX_LAG_MS);
    killer.onStarted();
    const flight = runOrder(stack.urls.gateway, order, retry).then((outcome) => {
      outcomes[order.index] = outcome;
      killer.onAnswered();
      inFlight.delete(flight);
    });
    inFlight.add(flight);
    if (Date.now() >= nextProgress) {
      nextProgress += 60_000;
      const minutes = ((Date.now() - startedAt) / 60_000).toFixed(0);
      log(
        `  ${minutes} min: ${order.index + 1}/${orders.length} orders started, ${killer.answered} answered`,
      );
    }
  }
  await Promise.all(inFlight);
  return outcomes;
}
