/** The soak's report as `pnpm soak` prints it, and the files it writes: the same text, the series, a plot per process. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatChaosReport } from '../chaos/chaos-table.js';
import type { SoakReport } from './soak-engine.js';
import { soakSvg } from './soak-svg.js';
import { formatSeries, formatVerdict } from './soak-table.js';

/** The whole report: the run, the series, the verdict, the chaos run's checks, the result. */
export function formatSoakReport(report: SoakReport): string {
  const o = report.options;
  const { verdict, chaos } = report;
  return [
    `soak: ${o.minutes} min at ${o.rate} orders/s (${chaos.planned.orders} orders, ${report.traffic.rate.toFixed(2)}/s achieved over ${report.traffic.seconds.toFixed(0)} s), a sample every ${o.sampleSeconds} s, warm-up ${o.warmupSeconds} s per life, seed ${chaos.options.seed}`,
    'kills: ' +
      (report.kills.length === 0
        ? 'none'
        : report.kills
            .map((k) => `${k.process} at ${k.at.toFixed(1)} s (back at ${k.backAt.toFixed(1)} s)`)
            .join(', ')),
    '',
    formatSeries({ series: report.series, kills: report.kills, sampleSeconds: o.sampleSeconds }),
    '',
    formatVerdict(verdict),
    '',
    formatChaosReport(chaos),
    '',
    `soak result: ${report.ok ? 'OK' : 'FAILED'}${report.ok ? '' : ` (${[verdict.ok ? '' : 'the services', chaos.ok ? '' : 'the invariants'].filter(Boolean).join(' and ')})`}`,
  ].join('\n');
}

/**
 * Writes `soak.txt` (the printed report), `series.json` (every sample and kill) and `<process>.svg` (its plot) into
 * `dir`; returns the paths written.
 */
export async function writeSoakOutputs(report: SoakReport, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const { options, traffic, kills, series } = report;
  const files: Array<[string, string]> = [
    ['soak.txt', `${formatSoakReport(report)}\n`],
    ['series.json', `${JSON.stringify({ options, traffic, kills, series }, null, 1)}\n`],
    ...series.map((one): [string, string] => [
      `${one.process}.svg`,
      soakSvg({
        series: one,
        kills,
        durationSeconds: traffic.seconds,
        sampleSeconds: options.sampleSeconds,
        warmupSeconds: options.warmupSeconds,
      }),
    ]),
  ];
  await Promise.all(files.map(([name, text]) => writeFile(join(dir, name), text)));
  return files.map(([name]) => join(dir, name));
}
