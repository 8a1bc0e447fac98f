import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  loadTransitions,
  patched,
  promelaOf,
  STORES,
  type StoreKind,
  type TablePatch,
} from '../../model/transitions.js';
import {
  describeRun,
  runAll,
  type ModelBounds,
  type SpinCheck,
  type SpinJob,
  type SpinReport,
} from './spin.js';

// The Promela model (model/record.pml around the table's generated transitions) checked by spin: every property
// holds on both stores' models, and every deliberately broken variant is refuted for the property it breaks.
// `pnpm test:model` runs the same with larger bounds (MODEL_SOAK=1) and prints every figure.

interface BrokenVariant {
  readonly name: string;
  readonly property: string;
  readonly why: string;
  readonly store: StoreKind;
  readonly check: SpinCheck;
  readonly violation: string;
  readonly patches?: readonly TablePatch[];
  readonly defines?: readonly string[];
}

const { variants } = JSON.parse(
  readFileSync(new URL('../../model/broken-variants.json', import.meta.url), 'utf8'),
) as { variants: BrokenVariant[] };

const soak = process.env['MODEL_SOAK'] === '1';
/** Clients: the first with ATTEMPTS owner tokens, two with one (one of them under other parameters). */
const BOUNDS: Record<SpinCheck, ModelBounds> = soak
  ? { safety: { ATTEMPTS: 2, LOSSES: 2, EXPIRIES: 2 }, progress: { ATTEMPTS: 2, LOSSES: 1, EXPIRIES: 1 } }
  : { safety: { ATTEMPTS: 2, LOSSES: 1, EXPIRIES: 1 }, progress: { ATTEMPTS: 1, LOSSES: 1, EXPIRIES: 1 } };
const CHECKS: SpinCheck[] = ['safety', 'progress'];
// A bound, not a measurement: a loaded machine runs pan a few times slower than a free one.
const SPIN_TIMEOUT_MS = soak ? 3_600_000 : 600_000;

const table = loadTransitions();
const realRuns = STORES.flatMap((store) => CHECKS.map((check) => [store, check] as const));

let reports: Record<string, Promise<SpinReport>>;
beforeAll(() => {
  const jobs: Record<string, SpinJob> = {};
  for (const [store, check] of realRuns) {
    const hashBits = soak ? 24 : 22;
    jobs[`${store} ${check}`] = {
      store,
      check,
      transitions: table,
      bounds: BOUNDS[check],
      optimise: true,
      hashBits,
    };
  }
  for (const v of variants) {
    jobs[v.name] = {
      store: v.store,
      check: v.check,
      transitions: patched(table, v.patches ?? []),
      bounds: BOUNDS[v.check],
      defines: v.defines ?? [],
      optimise: false,
    };
  }
  reports = runAll(jobs, 2);
});

const lines: string[] = [];
afterAll(() => {
  if (soak || process.env['MODEL_REPORT'] === '1')
    process.stdout.write(`spin, bounds ${JSON.stringify(BOUNDS)}:\n${lines.join('\n')}\n`);
});

describe('the record protocol, model-checked with spin', () => {
  it('model/transitions.pml is what model/transitions.ts generates from the table', () => {
    const committed = readFileSync(new URL('../../model/transitions.pml', import.meta.url), 'utf8');
    // Regenerate with `node model/transitions.ts` after changing transitions.json.
    expect(committed).toBe(promelaOf(table));
  });

  it.each(realRuns)(
    '%s store, %s: verified, on a search that covered the whole state space',
    async (store, check) => {
      const report = await reports[`${store} ${check}`]!;
      lines.push(describeRun(`${store} ${check}`, report));
      expect({ errors: report.errors, violation: report.violation, complete: report.complete }).toEqual({
        errors: 0,
        violation: undefined,
        complete: true,
      });
      expect(report.statesStored).toBeGreaterThan(100_000);
    },
    SPIN_TIMEOUT_MS,
  );

  it.each(variants.map((v) => [v.property, v.name, v] as const))(
    'refutes %s when broken: %s',
    async (_property, name, variant) => {
      const report = await reports[name]!;
      lines.push(describeRun(name, report));
      expect(report.errors).toBeGreaterThan(0);
      expect(report.violation).toContain(variant.violation);
    },
    SPIN_TIMEOUT_MS,
  );
});
