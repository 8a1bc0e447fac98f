/**
 * `pnpm bench:keys`: the cost of parsing an `Idempotency-Key` header grows with its length, never with its square.
 *
 * Times `parseIdempotencyKeyHeader` on `order:42` (8 characters) and on `a<12 000 spaces>b` (12 002), in the same
 * run, and prints each one's mean time per parse and their ratio. A parser that backtracks (the `[ \t]+$` trim it
 * replaced) takes tens of milliseconds on the long header; a linear one refuses it in about the time of the short.
 * `a<250 spaces>b`, within the length limit, is scanned to its end. The same ratio for the old regex trim is printed as the baseline.
 *
 * Environment (optional): BENCH_SAMPLES (default 20000).
 */
import { parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import { positiveInt } from './support/env.js';

const SAMPLES = positiveInt('BENCH_SAMPLES', 20_000);
const SHORT = 'order:42';
const LONG = `a${' '.repeat(12_000)}b`;
// Within the length limit, so the whole field is scanned before it is refused.
const SCANNED = `a${' '.repeat(250)}b`;

/** Mean nanoseconds per call of `fn(input)` over `samples` calls, after a warm-up. */
function nsPerCall(fn: (input: string) => unknown, input: string, samples: number): number {
  for (let i = 0; i < Math.min(1_000, samples); i++) fn(input);
  const started = process.hrtime.bigint();
  for (let i = 0; i < samples; i++) fn(input);
  return Number(process.hrtime.bigint() - started) / samples;
}

const parse = (field: string) => parseIdempotencyKeyHeader([field]);
// What the previous parser did first: trim optional whitespace with a regex, quadratic on spaces before a non-space.
const regexTrim = (field: string) => field.replace(/^[ \t]+|[ \t]+$/g, '');

const short = nsPerCall(parse, SHORT, SAMPLES);
const long = nsPerCall(parse, LONG, SAMPLES);
const scanned = nsPerCall(parse, SCANNED, SAMPLES);
const regexShort = nsPerCall(regexTrim, SHORT, SAMPLES);
const regexLong = nsPerCall(regexTrim, LONG, Math.max(10, Math.floor(SAMPLES / 1_000)));

const fmt = (ns: number) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${ns.toFixed(0)} ns`);
console.log(`parseIdempotencyKeyHeader, mean per parse (${SAMPLES} samples each)`);
console.log(`  ${JSON.stringify(SHORT)}: ${fmt(short)}`);
console.log(`  "a<12 000 spaces>b": ${fmt(long)}  ratio ${(long / short).toFixed(2)}x`);
console.log(
  `  "a<250 spaces>b" (scanned to the end): ${fmt(scanned)}  ratio ${(scanned / short).toFixed(2)}x`,
);
console.log('baseline: the regex trim of the previous parser');
console.log(`  ${JSON.stringify(SHORT)}: ${fmt(regexShort)}`);
console.log(`  "a<12 000 spaces>b": ${fmt(regexLong)}  ratio ${(regexLong / regexShort).toFixed(0)}x`);
