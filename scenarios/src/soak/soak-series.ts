/** What the soak records: one series of samples per service process, and the kills, in seconds since the start. */
import type { ServiceName } from '../stack/stack.js';

/** One scrape of one process's `/metrics`. */
export interface SoakSample {
  /** Seconds since the traffic started. */
  readonly at: number;
  /** `process_resident_memory_bytes`. */
  readonly rssBytes: number;
  /** `nodejs_heap_size_used_bytes`: the V8 heap in use, garbage not yet collected included. */
  readonly heapUsedBytes: number;
  /**
   * `nodejs_eventloop_lag_p99_seconds`, in ms: the 99th percentile of the event loop's delay since the scrape before
   * (prom-client resets its histogram at every scrape, and the soak is the only scraper of its stack).
   */
  readonly eventLoopP99Ms: number;
  /** `nodejs_gc_duration_seconds_count{kind="major"}`: mark-compacts so far (a rise: the heap was collected whole). */
  readonly majorGcs: number;
  /** `process_start_time_seconds`: it changes when the process was killed and started again (a new life). */
  readonly startedAt: number;
}

/** Every sample of one process (a scrape that failed, while it was down, has none). */
export interface ProcessSeries {
  /** The process's name: `gateway`, `orders-1`, `payments-2`, `worker`, `provider`. */
  readonly process: string;
  readonly service: ServiceName;
  readonly samples: readonly SoakSample[];
}

/** A kill of one process, in seconds since the traffic started. */
export interface KillMark {
  readonly process: string;
  readonly service: ServiceName;
  /** SIGKILLed. */
  readonly at: number;
  /** Healthy again. */
  readonly backAt: number;
}

/** A service's life: its samples from one start to the next (a killed process begins a new one). */
export function livesOf(samples: readonly SoakSample[]): SoakSample[][] {
  const lives: SoakSample[][] = [];
  for (const sample of samples) {
    const current = lives.at(-1);
    if (current !== undefined && current[0]?.startedAt === sample.startedAt) current.push(sample);
    else lives.push([sample]);
  }
  return lives;
}
