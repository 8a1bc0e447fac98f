/**
 * The soak run (`pnpm soak`): the chaos run's stack, faults, kills and checks (src/chaos/), its traffic at a steady
 * rate for minutes, with every process's RSS, heap and event-loop delay sampled from its `/metrics` meanwhile. It
 * passes when every invariant of the chaos run holds and no service grows (soak-verdict.ts).
 */
import { freePort } from '@retry-safe/testing';
import { runChaosWith, type ChaosDriveContext } from '../chaos/chaos-engine.js';
import type { ChaosReport } from '../chaos/chaos-report.js';
import type { KillRecord } from '../chaos/service-killer.js';
import type { ServiceEnv, ServiceName, Stack } from '../stack/stack.js';
import { resolveSoakOptions, type ResolvedSoakOptions, type SoakOptions } from './soak-options.js';
import { SoakSampler, type ScrapeTarget } from './soak-sampler.js';
import type { KillMark, ProcessSeries } from './soak-series.js';
import { sendPaced } from './soak-traffic.js';
import { judgeSoak, type SoakVerdict } from './soak-verdict.js';

/** What `runSoak` found. */
export interface SoakReport {
  readonly options: ResolvedSoakOptions;
  /** The chaos run's report: its invariants, counted after the traffic. */
  readonly chaos: ChaosReport;
  /** Every process's samples, in seconds since the traffic started. */
  readonly series: readonly ProcessSeries[];
  readonly kills: readonly KillMark[];
  /** How long the traffic ran, and the orders it started per second. */
  readonly traffic: { readonly seconds: number; readonly rate: number };
  readonly verdict: SoakVerdict;
  /** The chaos run's invariants held and the verdict passed. */
  readonly ok: boolean;
}

/** The services sampled, in the order of the table. */
const SAMPLED: readonly ServiceName[] = ['gateway', 'orders', 'payments', 'worker', 'provider'];

/**
 * Runs the soak: one kill of an orders process and one of a payments process (a third and two thirds into the
 * traffic). Starts and always closes its own stack; throws only when it cannot start or a killed process does not
 * come back.
 */
export async function runSoak(options: SoakOptions = {}): Promise<SoakReport> {
  const resolved = resolveSoakOptions(options);
  const metricsPort = await freePort();
  const measured = { series: [] as ProcessSeries[], kills: [] as KillRecord[], startedAt: 0, endedAt: 0 };
  const orders = Math.max(3, Math.round(resolved.rate * resolved.minutes * 60));
  const send = async (run: ChaosDriveContext) => {
    const sampler = new SoakSampler(() => targets(run.stack, metricsPort), resolved.sampleSeconds * 1000);
    measured.startedAt = Date.now();
    sampler.start();
    try {
      return await sendPaced(run, { rate: resolved.rate, maxInFlight: resolved.maxInFlight });
    } finally {
      measured.endedAt = Date.now();
      measured.series = await sampler.stop();
      measured.kills = [...run.killer.history];
    }
  };
  const log = options.log ?? (() => {});
  log(
    `soak: ${resolved.minutes} min at ${resolved.rate} orders/s (${orders} orders), a sample every ${resolved.sampleSeconds} s`,
  );
  const chaos = await runChaosWith(
    {
      orders,
      kills: 1,
      ordersKills: 1,
      log,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.logs === undefined ? {} : { logs: options.logs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
    { env: withGatewayMetrics(options.env ?? {}, metricsPort), send },
  );
  const seconds = (measured.endedAt - measured.startedAt) / 1000;
  const kills = measured.kills.map((kill): KillMark => ({
    process: kill.process,
    service: kill.service,
    at: (kill.killedAt - measured.startedAt) / 1000,
    backAt: (kill.backAt - measured.startedAt) / 1000,
  }));
  const verdict = judgeSoak(measured.series, kills, resolved);
  return {
    options: resolved,
    chaos,
    series: measured.series,
    kills,
    traffic: { seconds, rate: seconds > 0 ? orders / seconds : 0 },
    verdict,
    ok: chaos.ok && verdict.ok,
  };
}

/** The gateway serves `/metrics` on a listener of its own: the soak picks its port to scrape it. */
function withGatewayMetrics(
  env: Partial<Record<ServiceName, ServiceEnv>>,
  port: number,
): Partial<Record<ServiceName, ServiceEnv>> {
  return { ...env, gateway: { METRICS_PORT: String(port), ...env.gateway } };
}

/** Every process of the stack now, and where its metrics are (the others serve them on their own port). */
function targets(stack: Stack, gatewayMetricsPort: number): ScrapeTarget[] {
  return SAMPLED.flatMap((service) =>
    stack.processes(service).map((process) => ({
      process: process.name,
      service,
      metricsUrl: service === 'gateway' ? `http://127.0.0.1:${gatewayMetricsPort}` : process.url,
    })),
  );
}
