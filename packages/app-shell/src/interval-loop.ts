import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';

/** Options of an {@link IntervalLoop}. */
export interface IntervalLoopOptions {
  /** Names the loop in its logs (the logger's context). */
  readonly name: string;
  /** The wait between the end of one tick and the start of the next, in ms (a positive integer). */
  readonly periodMs: number;
  /**
   * Spreads the waits: each is drawn uniformly in `[periodMs * (1 - jitter), periodMs]`, so replicas started
   * together do not tick together. 0 to 1.
   * @default 0 (a fixed period)
   */
  readonly jitter?: number;
  /**
   * The bound of one tick, in ms: past it the tick's signal aborts and the overrun is logged. The loop never
   * starts another tick while one runs, so a tick must end once its signal aborts (between batches, at its next
   * statement).
   */
  readonly tickTimeoutMs: number;
  /**
   * Runs the first tick as soon as the loop starts instead of one period later.
   * @default false
   */
  readonly immediate?: boolean;
  /**
   * The `msg` logged (at `warn`, with the error) when a tick fails.
   * @default `<name> failed`
   */
  readonly failureMessage?: string;
}

/** The work of one tick; `signal` aborts when the tick passes its bound or the loop stops. */
export type IntervalTick<T> = (signal: AbortSignal) => Promise<T>;

/**
 * Runs `tick` every `periodMs` (from the end of one tick to the start of the next, optionally jittered), one tick
 * at a time: a tick asked for while another runs ({@link wake}) runs right after it, and {@link run} joins the
 * running one. A tick's error is logged, never thrown, and the loop goes on (a failed tick waits for the period:
 * a failing dependency is not hammered). {@link stop} aborts the running tick's signal and waits for it to end.
 *
 * Its owner starts it on module init and stops it on module destroy; registered as a provider of its own, Nest
 * does both (`onModuleInit`, `onModuleDestroy`). Its timers never keep a process alive.
 */
export class IntervalLoop<T = void> implements OnModuleInit, OnModuleDestroy {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T | undefined> | undefined;
  private controller: AbortController | undefined;
  private again = false;
  private started = false;
  private stopped = false;

  constructor(
    private readonly options: IntervalLoopOptions,
    private readonly tick: IntervalTick<T>,
  ) {
    assertPositiveInteger('periodMs', options.periodMs);
    assertPositiveInteger('tickTimeoutMs', options.tickTimeoutMs);
    const jitter = options.jitter ?? 0;
    if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be between 0 and 1, got ${jitter}`);
    this.logger = new Logger(options.name);
  }

  /** Starts the ticks (the first at once with `immediate`, else after one period). Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    if (this.options.immediate === true) void this.run();
    else this.schedule();
  }

  /**
   * A tick now, or the running one: resolves to its result, `undefined` when it failed (logged) or the loop has
   * stopped.
   */
  run(): Promise<T | undefined> {
    if (this.running !== undefined) return this.running;
    if (this.stopped) return Promise.resolve(undefined);
    clearTimeout(this.timer);
    const controller = new AbortController();
    const bound = setTimeout(() => this.overran(controller), this.options.tickTimeoutMs);
    bound.unref();
    let failed = false;
    this.controller = controller;
    // The tick starts on the next microtask, once `running` is set: a tick that wakes its own loop right away
    // (or throws at once) is handled like any other.
    this.running = Promise.resolve()
      .then(() => this.tick(controller.signal))
      .catch((error: unknown) => {
        failed = true;
        const msg = this.options.failureMessage ?? `${this.options.name} failed`;
        this.logger.warn({ msg, error: String(error) });
        return undefined;
      })
      .finally(() => {
        clearTimeout(bound);
        this.running = undefined;
        this.controller = undefined;
        this.next(failed);
      });
    return this.running;
  }

  /** Asks for a tick as soon as possible: now, or right after the running one (several asks make one tick). */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined) this.again = true;
    else void this.run();
  }

  /** Resolves once no tick runs and none is asked for (the ticks a {@link wake} chained included). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** No tick starts from now on; the running one's signal aborts, and this resolves once it has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.controller?.abort(new Error(`${this.options.name}: stopped`));
    await this.idle();
  }

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  private overran(controller: AbortController): void {
    const boundMs = this.options.tickTimeoutMs;
    this.logger.warn({ msg: `${this.options.name}: tick ran past its bound; aborting it`, boundMs });
    controller.abort(new Error(`${this.options.name}: tick ran past ${boundMs} ms`));
  }

  /** After a tick: the one asked for meanwhile at once (unless this one failed), else the next period's. */
  private next(failed: boolean): void {
    const again = this.again && !failed;
    this.again = false;
    if (this.stopped) return;
    if (again) void this.run();
    else if (this.started) this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const spread = (this.options.jitter ?? 0) * Math.random();
    this.timer = setTimeout(() => void this.run(), Math.round(this.options.periodMs * (1 - spread)));
    this.timer.unref();
  }
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}
