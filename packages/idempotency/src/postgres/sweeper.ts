/**
 * The background deletion of expired rows. Expired rows already count as absent; sweeping only reclaims their
 * space, so growth stays bounded by what expires per interval. A round runs when the sweeper starts (the store's
 * `migrate()`, or its first use) and then every `intervalMs`, and keeps deleting batches until one comes back
 * short: a backlog is cleared in one round, not at a fixed number of rows a minute. Batches run one after another,
 * each one bounded statement (see the `sweep` SQL function), so a round never holds many locks or runs long.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly sweepBatch: () => Promise<number>,
    private readonly batchSize: number,
    private readonly intervalMs: number,
  ) {}

  /** Starts sweeping (once; 0 as the interval never does): a round now, then one every interval. */
  start(): void {
    if (this.timer || this.stopped || this.intervalMs === 0) return;
    this.timer = setInterval(() => this.runRound(), this.intervalMs);
    this.timer.unref();
    this.runRound();
  }

  /** Stops; a round under way ends after its current batch. Resolves when it has. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
  }

  private runRound(): void {
    // A round still clearing a backlog is not overlapped by the next tick.
    if (this.round || this.stopped) return;
    this.round = this.sweep().finally(() => (this.round = undefined));
  }

  private async sweep(): Promise<void> {
    try {
      while (!this.stopped && (await this.sweepBatch()) >= this.batchSize) {
        // Let the claims queued behind this batch have the event loop (and a pooled connection) first.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch {
      // The next round tries again; expired rows count as absent meanwhile.
    }
  }
}
