import { sleep } from '@retry-safe/testing';
import type { FaultRule } from '../engine/target.js';
import type { ServiceName, Stack } from '../stack/stack.js';
import { countersOf, putFaults, type Counters } from './chaos-http.js';

/** What {@link ServiceKiller} needs. */
export interface ServiceKillerOptions {
  readonly stack: Stack;
  /** How many units of work (orders) the run makes. */
  readonly units: number;
  /**
   * The service of each kill, in order (e.g. `['payments', 'orders', 'payments']`). Each kill SIGKILLs one replica
   * of it, picked at random, and starts it again; one kill at a time, so a service with two replicas always has
   * one serving.
   */
  readonly schedule: readonly ServiceName[];
  /** What a process counts as the run's traffic (its counters are read just before it dies). */
  readonly routes: Partial<Record<ServiceName, RegExp>>;
  /** Each service's fault rules, put back on a process after its restart. */
  readonly rules: Partial<Record<ServiceName, readonly FaultRule[]>>;
  readonly random: () => number;
  readonly log: (line: string) => void;
  readonly signal?: AbortSignal;
}

/** One kill: the process, when it was SIGKILLed and when it served again (epoch ms). */
export interface KillRecord {
  readonly service: ServiceName;
  /** The process's name, `payments-2`. */
  readonly process: string;
  readonly killedAt: number;
  /** Healthy again, its fault rules back. */
  readonly backAt: number;
}

/**
 * SIGKILLs service processes mid-traffic, one per entry of the schedule. The units are cut into kills + 1
 * segments: kill k comes once the whole of segment k has started, so it lands among units in flight (whose retries
 * the other replica serves while the killed one is down), and segment k + 1 starts once the killed process is back.
 * So every scheduled kill happens, with traffic on both sides of it.
 */
export class ServiceKiller {
  /** Counters of the killed processes (theirs die with them), per service, read just before each kill. */
  readonly carried = new Map<ServiceName, Counters>();
  /** Kills done per service. */
  readonly kills = new Map<ServiceName, number>();
  /** Every kill done, in order (the soak marks them on its plots). */
  readonly history: KillRecord[] = [];
  private readonly total: number;
  private killedCount = 0;
  private startedCount = 0;
  private answeredCount = 0;
  private killsStarted = 0;
  private killing: Promise<void> | undefined;
  private failure: unknown;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly options: ServiceKillerOptions) {
    this.total = Math.min(options.schedule.length, Math.max(0, options.units - 1));
    options.signal?.addEventListener('abort', () => this.openGate(), { once: true });
  }

  /** Kills done (all of them once {@link settle} resolved). */
  get killed(): number {
    return this.killedCount;
  }

  /** Units answered so far. */
  get answered(): number {
    return this.answeredCount;
  }

  /** True while unit number `next` must wait for the kill of the segment before it. */
  blocks(next: number): boolean {
    return this.killedCount < this.total && next >= this.boundary(this.killedCount + 1);
  }

  /** Resolves once the kill in progress is done (or the run is aborted). */
  nextKill(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** A unit was started: may start the next kill. */
  onStarted(): void {
    this.startedCount += 1;
    this.maybeKill();
  }

  /** A unit got its final answers. */
  onAnswered(): void {
    this.answeredCount += 1;
  }

  /** Waits for the last kill; throws when a killed process did not come back (no verdict on the system then). */
  async settle(): Promise<void> {
    while (this.killing !== undefined) await this.killing;
    if (this.failure !== undefined) throw this.failure;
  }

  private boundary(k: number): number {
    return Math.floor((k * this.options.units) / (this.total + 1));
  }

  private openGate(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private maybeKill(): void {
    if (this.killing !== undefined || this.killsStarted >= this.total) return;
    if (this.startedCount < this.boundary(this.killsStarted + 1)) return;
    const service = this.options.schedule[this.killsStarted] as ServiceName;
    this.killsStarted += 1;
    this.killing = this.kill(service)
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

  private async kill(service: ServiceName): Promise<void> {
    const { stack, random, log, rules, routes } = this.options;
    const processes = stack.processes(service);
    const target = processes[Math.floor(random() * processes.length)];
    if (target === undefined) throw new Error(`no ${service} process to kill`);
    const route = routes[service];
    const before = route === undefined ? undefined : await countersOf(target.adminUrl, route);
    const inFlight = this.startedCount - this.answeredCount;
    const killedAt = Date.now();
    await target.kill('SIGKILL');
    if (before !== undefined) {
      const carried = this.carried.get(service) ?? { calls: 0, drops: 0 };
      this.carried.set(service, { calls: carried.calls + before.calls, drops: carried.drops + before.drops });
    }
    log(`  killed ${target.name} (SIGKILL) with ${inFlight} order(s) in flight; starting it again`);
    await sleep(100 + Math.floor(random() * 400));
    await target.start();
    await putFaults(target.adminUrl, rules[service] ?? []);
    this.history.push({ service, process: target.name, killedAt, backAt: Date.now() });
    this.kills.set(service, (this.kills.get(service) ?? 0) + 1);
    this.killedCount += 1;
    this.openGate();
  }
}
