/**
 * `pnpm soak`: the chaos run's traffic at a steady rate for minutes, on a stack of its own, with every service's
 * RSS, heap and event-loop delay sampled from its `/metrics` (see src/soak/soak-engine.ts, docs/operations.md#soak).
 *
 *   pnpm soak [--minutes 10] [--rate 3] [--sample-seconds 10] [--warmup-seconds 60] [--out scenarios-out/soak]
 *             [--seed N] [--logs]
 *
 * Prints the series and the verdict, writes them with a plot per process (SVG) under `--out`. Exits 0 when every
 * invariant of the chaos run holds, no service's heap grew more than 10 % after its warm-up and no event-loop delay
 * p99 passed 100 ms outside the kills; 1 otherwise, 2 for bad arguments.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runSoak } from '../soak/soak-engine.js';
import { SOAK_DEFAULTS, type SoakOptions } from '../soak/soak-options.js';
import { formatSoakReport, writeSoakOutputs } from '../soak/soak-output.js';
import { repoRoot } from '../repo-root.js';
import { runCommand } from './run-cli.js';

const USAGE =
  'usage: pnpm soak [--minutes 10] [--rate 3 orders/s] [--sample-seconds 10] [--warmup-seconds 60] [--out scenarios-out/soak] [--seed N] [--logs]';

/** Where the report and the plots go by default (gitignored). */
const DEFAULT_OUT = 'scenarios-out/soak';

function positive(name: string, value: string | undefined, fallback: number, zero = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero)) {
    throw new Error(
      `--${name} must be a ${zero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The run's options from the command line; throws with a message for the user. */
function optionsFrom(argv: string[]): (SoakOptions & { out: string }) | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      'sample-seconds': { type: 'string' },
      'warmup-seconds': { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string' },
      logs: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const seed = values.seed === undefined ? undefined : positive('seed', values.seed, 0, true);
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new Error('--seed must be a whole number');
  return {
    minutes: positive('minutes', values.minutes, SOAK_DEFAULTS.minutes),
    rate: positive('rate', values.rate, SOAK_DEFAULTS.rate),
    sampleSeconds: positive('sample-seconds', values['sample-seconds'], SOAK_DEFAULTS.sampleSeconds),
    warmupSeconds: positive('warmup-seconds', values['warmup-seconds'], SOAK_DEFAULTS.warmupSeconds, true),
    out: values.out === undefined ? join(repoRoot(), DEFAULT_OUT) : resolve(values.out),
    ...(seed === undefined ? {} : { seed }),
    logs: values.logs === true,
  };
}

runCommand(USAGE, optionsFrom, async (options, signal) => {
  const report = await runSoak({ ...options, log: (line) => console.log(line), signal });
  console.log(`\n${formatSoakReport(report)}`);
  const files = await writeSoakOutputs(report, options.out);
  console.log(`\nwritten: ${files.join(', ')}`);
  return report.ok ? 0 : 1;
});
