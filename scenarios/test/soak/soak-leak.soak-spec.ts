/**
 * The soak's self-test (`pnpm soak:selftest`, not part of `pnpm test`: two whole stacks, about five minutes): the
 * same short soak twice, the gateway running a full GC every 5 s in both (fixtures/collect-often.mjs: so that
 * 30-second thirds each hold a full collection), and keeping every request it receives in the first
 * (fixtures/leak-every-request.mjs). With the leak the soak fails, on the gateway's heap and on nothing else;
 * without it, it passes.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { repoRoot } from '../../src/repo-root.js';
import { runSoak, type SoakReport } from '../../src/soak/soak-engine.js';
import { formatSoakReport, writeSoakOutputs } from '../../src/soak/soak-output.js';
import { HeapStatus } from '../../src/soak/soak-verdict.js';

const fixture = (name: string): string =>
  pathToFileURL(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))).href;

/** Two minutes at 3 orders/s, a sample every 2 s, 30 s of warm-up: the gateway's life has 45 samples judged. */
const SHORT = { minutes: 2, rate: 3, sampleSeconds: 2, warmupSeconds: 30 } as const;
// A stack start, two minutes of traffic, the checks and the stop: about three minutes; room for a loaded machine.
const TIMEOUT_MS = 360_000;

/** One short soak with `preloads` in the gateway; its report is also written under scenarios-out/soak-selftest. */
async function shortSoak(
  name: string,
  preloads: readonly string[],
): Promise<{ report: SoakReport; text: string }> {
  const report = await runSoak({
    ...SHORT,
    env: { gateway: { NODE_OPTIONS: preloads.map((file) => `--import ${fixture(file)}`).join(' ') } },
  });
  await writeSoakOutputs(report, join(repoRoot(), 'scenarios-out', 'soak-selftest', name));
  return { report, text: formatSoakReport(report) };
}

describe('soak self-test: a deliberate leak fails the soak, its absence passes it', () => {
  it(
    'with every request kept in the gateway, the soak fails on the heap of the gateway, and only of it',
    async () => {
      const { report, text } = await shortSoak('leak', ['collect-often.mjs', 'leak-every-request.mjs']);
      const grew = report.verdict.heap.filter((finding) => finding.status === HeapStatus.Grew);

      // The report is the failure message: the series show where the heap went.
      expect({ grew: grew.map((f) => `${f.process} ${f.life}`), text }).toEqual({
        grew: ['gateway 1'],
        text,
      });
      expect(report.verdict.problems.filter((line) => line.includes('heap'))).toEqual([
        expect.stringMatching(
          /^gateway \(life 1\): heap grew \+\d+\.\d % from \d+ s to \d+ s \(limit \+10\.0 %\)$/,
        ),
      ]);
      expect(report.ok).toBe(false);
      // The leak costs memory, not correctness: the chaos run's invariants still hold.
      expect({ chaos: report.chaos.ok, problems: report.chaos.problems }).toEqual({
        chaos: true,
        problems: [],
      });
    },
    TIMEOUT_MS,
  );

  it(
    'without it, the same soak passes: the gateway judged and flat, no event loop stalled, every invariant held',
    async () => {
      const { report, text } = await shortSoak('clean', ['collect-often.mjs']);
      const gateway = report.verdict.heap.find((finding) => finding.process === 'gateway');

      expect({ ok: report.ok, text }).toEqual({ ok: true, text });
      expect(gateway?.status).toBe(HeapStatus.Ok);
      expect(report.kills.map((kill) => kill.service)).toEqual(['orders', 'payments']);
    },
    TIMEOUT_MS,
  );
});
