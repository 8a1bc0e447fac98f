/**
 * `pnpm chaos`: the chaos run on a stack of its own (see src/chaos/chaos-engine.ts).
 *
 *   pnpm chaos [--n 200] [--dedup on|off] [--seed N] [--kills 3] [--orders-kills 3] [--concurrency 16] [--logs]
 *
 * Exits 0 when every order was created once, every payment charged exactly once, applied once and answered with
 * one Charge, every `paidAmount` is the sum of its charges and every invoice was sent once (with `--dedup off`:
 * the same, the duplicate charges being the point, reported per path), 1 otherwise, 2 for bad arguments.
 */
import { parseArgs } from 'node:util';
import { runChaos } from '../chaos/chaos-engine.js';
import type { ChaosOptions } from '../chaos/chaos-report.js';
import { formatChaosReport } from '../chaos/chaos-table.js';
import { runCommand } from './run-cli.js';

const USAGE =
  'usage: pnpm chaos [--n 200 orders] [--dedup on|off] [--seed N] [--kills 3] [--orders-kills 3] [--concurrency 16] [--logs]';

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new Error(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** The run's options from the command line; throws with a message for the user. */
function optionsFrom(argv: string[]): (ChaosOptions & { logs: boolean }) | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string' },
      dedup: { type: 'string' },
      seed: { type: 'string' },
      kills: { type: 'string' },
      'orders-kills': { type: 'string' },
      concurrency: { type: 'string' },
      logs: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (values.dedup !== undefined && values.dedup !== 'on' && values.dedup !== 'off') {
    throw new Error(`--dedup must be 'on' or 'off', got ${JSON.stringify(values.dedup)}`);
  }
  return {
    orders: Math.max(1, wholeNumber('n', values.n, 200)),
    providerDedup: values.dedup !== 'off',
    ...(values.seed === undefined ? {} : { seed: wholeNumber('seed', values.seed, 0) }),
    kills: wholeNumber('kills', values.kills, 3),
    ordersKills: wholeNumber('orders-kills', values['orders-kills'], 3),
    concurrency: Math.max(1, wholeNumber('concurrency', values.concurrency, 16)),
    logs: values.logs === true,
  };
}

runCommand(USAGE, optionsFrom, async (options, signal) => {
  const report = await runChaos({ ...options, log: (line) => console.log(line), signal });
  console.log(`\n${formatChaosReport(report)}`);
  return report.ok ? 0 : 1;
});
