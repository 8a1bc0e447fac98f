/**
 * The soak's sampler: every period, `GET /metrics` of every process of the stack at once, read into a
 * {@link SoakSample}. Nothing is added to the services: these are prom-client's default metrics, which every
 * service's registry collects (packages/app-shell, `collectDefaultMetrics`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { metricSample } from '@retry-safe/testing';
import type { ServiceName } from '../stack/stack.js';
import type { ProcessSeries, SoakSample } from './soak-series.js';

/** Where one process serves its metrics. */
export interface ScrapeTarget {
  readonly process: string;
  readonly service: ServiceName;
  /** Base URL of its `GET /metrics`. */
  readonly metricsUrl: string;
}

/** A scrape that takes longer is a missing sample (the process is down, or too busy to answer). */
const SCRAPE_TIMEOUT_MS = 5_000;

/** The sample in one `/metrics` text, or undefined when the text lacks a default metric. */
export function sampleOf(text: string, at: number): SoakSample | undefined {
  const value = (name: string): number | undefined =>
    text.includes(`\n${name} `) || text.startsWith(`${name} `) ? metricSample(text, name) : undefined;
  const rss = value('process_resident_memory_bytes');
  const heap = value('nodejs_heap_size_used_bytes');
  const p99 = value('nodejs_eventloop_lag_p99_seconds');
  const startedAt = value('process_start_time_seconds');
  if (rss === undefined || heap === undefined || p99 === undefined || startedAt === undefined)
    return undefined;
  const majorGcs = metricSample(text, 'nodejs_gc_duration_seconds_count', { kind: 'major' });
  return { at, rssBytes: rss, heapUsedBytes: heap, eventLoopP99Ms: p99 * 1000, majorGcs, startedAt };
}

/** Scrapes `targets()` (read again at every tick) every `periodMs`, from {@link start} to {@link stop}. */
export class SoakSampler {
  private readonly series = new Map<string, { service: ServiceName; samples: SoakSample[] }>();
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private startedAt = 0;

  constructor(
    private readonly targets: () => readonly ScrapeTarget[],
    private readonly periodMs: number,
  ) {}

  /** Takes the first sample now (time 0), then one every period. */
  start(): void {
    this.startedAt = Date.now();
    this.loop = this.run();
  }

  /** Stops after the scrape in progress, and returns every series (in the order of the targets). */
  async stop(): Promise<ProcessSeries[]> {
    this.stopped.abort();
    await this.loop;
    return [...this.series].map(([process, { service, samples }]) => ({ process, service, samples }));
  }

  private async run(): Promise<void> {
    for (let tick = 0; !this.stopped.signal.aborted; tick++) {
      // Ticks on a fixed grid from the start, so a slow scrape does not shift the ones after it.
      const wait = this.startedAt + tick * this.periodMs - Date.now();
      if (wait > 0) await delay(wait, undefined, { signal: this.stopped.signal }).catch(() => {});
      if (this.stopped.signal.aborted) return;
      await Promise.all(this.targets().map((target) => this.scrape(target)));
    }
  }

  private async scrape(target: ScrapeTarget): Promise<void> {
    const entry = this.series.get(target.process) ?? { service: target.service, samples: [] };
    this.series.set(target.process, entry);
    const at = (Date.now() - this.startedAt) / 1000;
    try {
      const res = await fetch(`${target.metricsUrl}/metrics`, {
        signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
      });
      const sample = res.status === 200 ? sampleOf(await res.text(), at) : undefined;
      if (sample !== undefined) entry.samples.push(sample);
    } catch {
      // Down (killed, not back yet) or too slow: no sample, a gap in its series.
    }
  }
}
