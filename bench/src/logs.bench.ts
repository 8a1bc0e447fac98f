/**
 * `pnpm bench:logs`: what one log line costs the hot path. Every request writes one access line, so the shell's
 * logger (pino through nestjs-pino, with the request's log context, the trace fields' lookup and redaction) should
 * cost about what Nest's JSON `ConsoleLogger` did before it.
 *
 * Writes the access line of a payment BENCH_SAMPLES times through Nest's `Logger`, once with each logger, each in a
 * child process whose stdout is discarded (what a line costs to format and write, not what a terminal costs), in
 * the same run, and prints the CPU time per line and the ratio. Environment (optional): BENCH_SAMPLES (100000).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { createNestLogger, withLogContext } from '@retry-safe/app-shell/telemetry';
import { positiveInt } from './support/env.js';

const SAMPLES = positiveInt('BENCH_SAMPLES', 100_000);
const MODES = ['console', 'shell'] as const;
type Mode = (typeof MODES)[number];

/** The access line of a payment, as the request context middleware writes it. */
const accessLine = (i: number) => ({
  msg: 'request',
  requestId: `6fdb1d85-c3e6-406c-878e-a5a1a60b6a${String(i % 100).padStart(2, '0')}`,
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
  method: 'POST',
  path: '/v1/orders/47abb9da-be78-48a5-a892-88b01facf87b/payments',
  route: '/v1/orders/:orderId/payments',
  status: '201',
  replayed: false,
  durationMs: 12,
});

/** In the child: µs of CPU per line, on stderr (stdout is the lines). */
function measure(mode: Mode): void {
  Logger.overrideLogger(
    mode === 'console'
      ? new ConsoleLogger({ json: true, colors: false })
      : createNestLogger({ service: 'bench' }),
  );
  const logger = new Logger('http');
  // The shell's lines run inside the request's log context, as every request does.
  const write = (i: number) =>
    mode === 'console'
      ? logger.log(accessLine(i))
      : withLogContext({ requestId: 'r' }, () => logger.log(accessLine(i)));
  for (let i = 0; i < Math.min(5_000, SAMPLES); i++) write(i);
  const started = process.cpuUsage();
  for (let i = 0; i < SAMPLES; i++) write(i);
  const used = process.cpuUsage(started);
  process.stderr.write(`${(used.user + used.system) / SAMPLES}\n`);
}

function run(mode: Mode): number {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), mode], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`${mode} run failed: ${child.stderr}`);
  return Number(child.stderr.trim().split('\n').at(-1));
}

const mode = process.argv[2] as Mode | undefined;
if (mode !== undefined && MODES.includes(mode)) {
  measure(mode);
} else {
  const [consoleUs, shellUs] = MODES.map(run) as [number, number];
  console.log(
    `one access line through Nest's Logger, CPU per line (${SAMPLES} lines each, stdout discarded)`,
  );
  console.log(`  Nest ConsoleLogger (json), the baseline: ${consoleUs.toFixed(2)} µs`);
  console.log(`  the shell's logger (pino, nestjs-pino, log context, redaction): ${shellUs.toFixed(2)} µs`);
  console.log(`  ratio shell / baseline: ${(shellUs / consoleUs).toFixed(2)}`);
}
