/** The wait-mode wake-up figure both store benchmarks print, measured the same way for Redis and PostgreSQL. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoordinateRequest, IdempotencyCoordinator } from '@retry-safe/idempotency';
import { summarise, type LatencySummary } from './stats.js';

/** What {@link measureWakeUp} needs: an owner and a waiter on separate stores, as in two processes. */
export interface WakeUpPlan<T> {
  readonly samples: number;
  readonly owner: IdempotencyCoordinator;
  /** A coordinator with `inFlight: 'wait'` on its own store instance. */
  readonly waiter: IdempotencyCoordinator;
  readonly request: (key: string) => CoordinateRequest<T>;
  /** The owner's result for sample `i`. */
  readonly result: (i: number) => T;
  /** How long the waiter gets to subscribe (SSUBSCRIBE, LISTEN) and settle into its sleep before the owner ends. */
  readonly settleMs: number;
}

/**
 * The owner's action is held open until the waiter blocks on the key; then it completes. Each sample is the time
 * from the owner's completion returning to the waiter's result.
 */
export async function measureWakeUp<T>(plan: WakeUpPlan<T>): Promise<LatencySummary> {
  const wakeNs: bigint[] = [];
  for (let i = 0; i < plan.samples; i++) {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    let ownerDone = 0n;
    const owner = plan.owner
      .coordinate(plan.request(`wake-${i}`), async () => {
        started();
        await gate;
        return plan.result(i);
      })
      .then(() => (ownerDone = process.hrtime.bigint()));
    // The waiter starts once the owner holds the key, so it always finds the reservation in progress.
    await running;
    const waiting = plan.waiter
      .coordinate(plan.request(`wake-${i}`), async () => plan.result(i))
      .then(() => process.hrtime.bigint());
    await sleep(plan.settleMs);
    release();
    const [, waiterDone] = await Promise.all([owner, waiting]);
    wakeNs.push(waiterDone > ownerDone ? waiterDone - ownerDone : 0n);
  }
  return summarise(wakeNs);
}
