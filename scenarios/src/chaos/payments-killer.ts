import { sleep } from '@retry-safe/testing';
import type { FaultRule } from '../engine/target.js';
import type { Stack } from '../stack/stack.js';
import { countersOf, putFaults, type Counters } from './chaos-http.js';
import { ROUTES } from './chaos-plan.js';

/** What {@link PaymentsKiller} needs. */
export interface PaymentsKillerOptions {
  readonly stack: Stack;
  /** How many payments the run makes, and how many kills it asks for. */
  readonly payments: number;
  readonly kills: number;
  /** The payments processes' fault rules, put back on a process after its restart. */
  readonly rules: readonly FaultRule[];
  readonly random: () => number;
  readonly log: (line: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * SIGKILLs a payments process mid-traffic, `kills` times. The payments are cut into kills + 1 segments: kill k
 * comes once the whole of segment k has started, so it lands among requests in flight (whose retries the other
 * replica serves while the killed one is down), and segment k + 1 starts once the killed process is back. So
 * every requested kill happens, with traffic on both sides of it.
 */
export class PaymentsKiller {
  /** Counters of the killed processes (theirs die with them), read just before each kill. */
  readonly carried: Counters = { calls: 0, drops: 0 };
  private readonly total: number;
  private killedCount = 0;
  private startedCount = 0;
  private answeredCount = 0;
  private killsStarted = 0;
  private killing: Promise<void> | undefined;
  private failure: unknown;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly options: PaymentsKillerOptions) {
    this.total = Math.min(options.kills, Math.max(0, options.payments - 1));
    options.signal?.addEventListener('abort', () => this.openGate(), { once: true });
  }

  /** Kills done (all of them once {@link settle} resolved). */
  get killed(): number {
    return this.killedCount;
  }

  /** Payments answered so far. */
  get answered(): number {
    return this.answeredCount;
  }

  /** True while payment number `next` must wait for the kill of the segment before it. */
  blocks(next: number): boolean {
    return this.killedCount < this.total && next >= this.boundary(this.killedCount + 1);
  }

  /** Resolves once the kill in progress is done (or the run is aborted). */
  nextKill(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** A payment was sent: may start the next kill. */
  onStarted(): void {
    this.startedCount += 1;
    this.maybeKill();
  }

  /** A payment got its final answers. */
  onAnswered(): void {
    this.answeredCount += 1;
  }

  /** Waits for the last kill; throws when a killed process did not come back (no verdict on the system then). */
  async settle(): Promise<void> {
    while (this.killing !== undefined) await this.killing;
    if (this.failure !== undefined) throw this.failure;
  }

  private boundary(k: number): number {
    return Math.floor((k * this.options.payments) / (this.total + 1));
  }

  private openGate(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private maybeKill(): void {
    if (this.killing !== undefined || this.killsStarted >= this.total) return;
    if (this.startedCount < this.boundary(this.killsStarted + 1)) return;
    this.killsStarted += 1;
    this.killing = this.kill()
      .catch((error: unknown) => {
        this.failure ??= error;
        this.killedCount = this.total;
        this.openGate();
      })
      .finally(() => {
        this.killing = undefined;
        this.maybeKill();
      });
  }

  private async kill(): Promise<void> {
    const { stack, random, log, rules } = this.options;
    const processes = stack.processes('payments');
    const target = processes[Math.floor(random() * processes.length)];
    if (target === undefined) throw new Error('no payments process to kill');
    const before = await countersOf(target.url, ROUTES.payments);
    const inFlight = this.startedCount - this.answeredCount;
    await target.kill('SIGKILL');
    this.carried.calls += before.calls;
    this.carried.drops += before.drops;
    log(`  killed ${target.name} (SIGKILL) with ${inFlight} payment(s) in flight; starting it again`);
    await sleep(100 + Math.floor(random() * 400));
    await target.start();
    await putFaults(target.url, rules);
    this.killedCount += 1;
    this.openGate();
  }
}
