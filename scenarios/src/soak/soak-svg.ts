/**
 * The soak's plot of one process, as a plain hand-written SVG: RSS, heap used and event-loop delay p99 over time,
 * one panel each on the same time axis, a line per life (a kill starts a new one), the kills of the run marked, and
 * the delay limit drawn.
 */
import { SOAK_LIMITS } from './soak-options.js';
import { livesOf, type KillMark, type ProcessSeries, type SoakSample } from './soak-series.js';

/** What {@link soakSvg} draws besides the series. */
export interface PlotInput {
  readonly series: ProcessSeries;
  /** Every kill of the run (a kill of one process loads the others too). */
  readonly kills: readonly KillMark[];
  /** Length of the time axis. */
  readonly durationSeconds: number;
  readonly sampleSeconds: number;
  /** The start of each life this long is shaded on the heap panel: the verdict leaves it out. */
  readonly warmupSeconds: number;
}

const WIDTH = 760;
const LEFT = 64;
const RIGHT = 16;
const TOP = 52;
const PANEL = 150;
const GAP = 36;

const PANELS = [
  {
    title: 'RSS (MB)',
    color: '#1f77b4',
    of: (s: SoakSample) => s.rssBytes / 1e6,
    limit: undefined,
    warmup: false,
  },
  {
    title: 'heap used (MB; shaded: warm-up, not judged)',
    color: '#2ca02c',
    of: (s: SoakSample) => s.heapUsedBytes / 1e6,
    limit: undefined,
    warmup: true,
  },
  {
    title: 'event-loop delay p99 (ms)',
    color: '#9467bd',
    of: (s: SoakSample) => s.eventLoopP99Ms,
    limit: SOAK_LIMITS.eventLoopP99Ms,
    warmup: false,
  },
] as const;

/** The height of the plot. */
export const SVG_HEIGHT = TOP + PANELS.length * (PANEL + GAP) + 8;

/** The smallest 1, 2 or 5 times a power of ten that is at least `value`. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].map((m) => m * power).find((step) => step >= value) ?? 10 * power) as number;
}

const escape = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

const round = (n: number): string => String(Math.round(n * 10) / 10);

/** The SVG document of one process's series. */
export function soakSvg(input: PlotInput): string {
  const { series, durationSeconds } = input;
  const span = Math.max(durationSeconds, input.sampleSeconds);
  const x = (at: number): number => LEFT + (Math.min(at, span) / span) * (WIDTH - LEFT - RIGHT);
  const lives = livesOf(series.samples);
  const body = PANELS.map((panel, index) => {
    const top = TOP + index * (PANEL + GAP);
    const values = series.samples.map(panel.of);
    const max = niceCeiling(Math.max(panel.limit ?? 0, ...values) * 1.1);
    const y = (value: number): number => top + PANEL - (value / max) * PANEL;
    return [
      `<text x="${LEFT}" y="${top - 8}" class="title">${escape(panel.title)}</text>`,
      ...(panel.warmup
        ? lives.map((life) => {
            const from = x((life[0] as SoakSample).at);
            const to = x((life[0] as SoakSample).at + input.warmupSeconds);
            return `<rect x="${round(from)}" y="${top}" width="${round(to - from)}" height="${PANEL}" class="warmup"/>`;
          })
        : []),
      ...[0, 0.25, 0.5, 0.75, 1].map(
        (f) =>
          `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${round(y(max * f))}" y2="${round(y(max * f))}" class="grid"/>` +
          `<text x="${LEFT - 6}" y="${round(y(max * f) + 4)}" class="axis" text-anchor="end">${round(max * f)}</text>`,
      ),
      ...(panel.limit === undefined
        ? []
        : [
            `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${round(y(panel.limit))}" y2="${round(y(panel.limit))}" class="limit"/>` +
              `<text x="${WIDTH - RIGHT - 4}" y="${round(y(panel.limit) - 4)}" class="axis limit-label" text-anchor="end">limit ${panel.limit}</text>`,
          ]),
      // A line per life, and a dot where it starts (the restart of a killed process, or a life of one sample).
      ...lives.map((life) => {
        const points = life.map((sample) => `${round(x(sample.at))},${round(y(panel.of(sample)))}`);
        const [cx, cy] = (points[0] as string).split(',');
        return (
          `<polyline fill="none" stroke="${panel.color}" stroke-width="1.5" points="${points.join(' ')}"/>` +
          `<circle cx="${cx}" cy="${cy}" r="2.5" fill="${panel.color}"/>`
        );
      }),
    ].join('\n');
  });
  const bottom = TOP + PANELS.length * (PANEL + GAP) - GAP;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${SVG_HEIGHT}" viewBox="0 0 ${WIDTH} ${SVG_HEIGHT}" font-family="sans-serif" font-size="11">`,
    '<style>.title{font-weight:bold}.axis{fill:#555}.grid{stroke:#e4e4e4}.limit{stroke:#d62728;stroke-dasharray:6 3}.limit-label{fill:#d62728}.kill{stroke:#555;stroke-dasharray:3 3}.warmup{fill:#f1f1f1}</style>',
    `<rect width="${WIDTH}" height="${SVG_HEIGHT}" fill="#fff"/>`,
    `<text x="${LEFT}" y="16" class="title" font-size="13">${escape(`${series.process}: a sample every ${input.sampleSeconds} s, ${lives.length} ${lives.length === 1 ? 'life' : 'lives'}`)}</text>`,
    ...body,
    ...timeAxis(span, bottom, x),
    ...input.kills.map(
      (kill) =>
        `<line x1="${round(x(kill.at))}" x2="${round(x(kill.at))}" y1="${TOP - 4}" y2="${bottom}" class="kill"/>` +
        `<text x="${round(x(kill.at) + 3)}" y="${TOP + 8}" class="axis">${escape(`kill ${kill.process}`)}</text>`,
    ),
    '</svg>',
    '',
  ].join('\n');
}

/** Ticks under the last panel, about every tenth of the run on a round number of seconds. */
function timeAxis(span: number, bottom: number, x: (at: number) => number): string[] {
  const step = niceCeiling(span / 10);
  const ticks = Array.from({ length: Math.floor(span / step) + 1 }, (_, i) => i * step);
  return [
    ...ticks.map(
      (at) => `<text x="${round(x(at))}" y="${bottom + 16}" class="axis" text-anchor="middle">${at}</text>`,
    ),
    `<text x="${WIDTH - RIGHT}" y="${bottom + 30}" class="axis" text-anchor="end">seconds since the traffic started</text>`,
  ];
}
