/**
 * Runs scenarios against a target and reports them: a progress line per step, one measured table per scenario,
 * `scenarios-out/<name>.md` (the table and a Mermaid sequence diagram per design), or JSON. Shared by
 * `pnpm scenarios` and `pnpm demo`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runScenario, type RunOptions, type Scenario, type ScenarioResult } from './scenario.js';
import type { ScenarioTarget } from './target.js';

/** Options of {@link runAll}. */
export interface RunAllOptions {
  /** Progress lines (stderr in the CLIs). */
  readonly progress?: (line: string) => void;
  /** Where to write `<name>.md`; `undefined` writes nothing. */
  readonly outDir?: string;
  /** No scenario starts once this is aborted (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** Runs `scenarios` one after the other; an error in one is reported as its failure and the next still runs. */
export async function runAll(
  scenarios: ReadonlyArray<Scenario<unknown>>,
  target: ScenarioTarget,
  options: RunAllOptions = {},
): Promise<Array<ScenarioResult & { error?: string }>> {
  const results: Array<ScenarioResult & { error?: string }> = [];
  const runOptions: RunOptions = { ...(options.progress ? { onStep: options.progress } : {}) };
  for (const scenario of scenarios) {
    if (options.signal?.aborted) break;
    options.progress?.(`[${scenario.name}] ${scenario.title}`);
    try {
      const result = await runScenario(scenario, target, runOptions);
      results.push(result);
      if (options.outDir !== undefined) await writeMarkdown(options.outDir, result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      options.progress?.(`[${scenario.name}] FAILED: ${message}`);
      results.push({
        name: scenario.name,
        title: scenario.title,
        lesson: scenario.lesson,
        columns: scenario.columns,
        rows: [],
        matches: false,
        error: message,
      });
      // Leave the stack as clean as it can be for the next scenario.
      await target.reset().catch(() => {});
    }
  }
  return results;
}

/** A Markdown table (what the runner prints and docs/scenarios.md shows). */
export function markdownTable(columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${widths.map((width, i) => (cells[i] ?? '').padEnd(width)).join(' | ')} |`;
  return [
    line(columns),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

/** The measured table of one scenario, a heading above it and what did not match below it. */
export function formatResult(result: ScenarioResult & { error?: string }): string {
  const lines = [`${result.name}: ${result.title}`];
  if (result.error !== undefined) {
    lines.push(`  FAILED: ${result.error}`);
    return lines.join('\n');
  }
  const rows = result.rows.map(
    (row) => row.measured ?? [row.design, ...row.expected.slice(1).map(() => 'not run')],
  );
  lines.push(markdownTable(result.columns, rows));
  for (const row of result.rows) {
    if (row.skipped !== undefined) lines.push(`  not run here: ${row.design}: ${row.skipped}`);
    else if (!row.matches) {
      lines.push(
        `  MISMATCH ${row.design}: expected ${JSON.stringify(row.expected)}, measured ${JSON.stringify(row.measured)}`,
      );
    }
  }
  return lines.join('\n');
}

/** Writes `<outDir>/<name>.md`: title, lesson, measured table, and the diagram of every design. */
export async function writeMarkdown(outDir: string, result: ScenarioResult): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const parts = [
    `# ${result.name}: ${result.title}`,
    '',
    result.lesson,
    '',
    markdownTable(
      result.columns,
      result.rows.map((row) => row.measured ?? [row.design, ...row.expected.slice(1).map(() => 'not run')]),
    ),
    '',
  ];
  for (const row of result.rows) {
    parts.push(`## ${result.columns[0]}: ${row.design}`, '');
    if (row.skipped !== undefined) {
      parts.push(`Not run: ${row.skipped}`, '');
      continue;
    }
    parts.push(
      `Measured ${JSON.stringify(row.measured)}${row.matches ? ', as expected' : `, expected ${JSON.stringify(row.expected)}`}.`,
      '',
    );
    if (row.diagram !== undefined) parts.push('```mermaid', row.diagram, '```', '');
  }
  await writeFile(join(outDir, `${result.name}.md`), parts.join('\n'));
}

/** The JSON `--json` prints: every scenario, its expected and measured rows, and the diagrams. */
export function jsonReport(results: ReadonlyArray<ScenarioResult & { error?: string }>): unknown {
  return {
    ok: results.every(
      (result) => result.error === undefined && result.rows.every((row) => row.matches || row.skipped),
    ),
    scenarios: results.map((result) => ({
      name: result.name,
      title: result.title,
      columns: result.columns,
      ...(result.error === undefined ? {} : { error: result.error }),
      rows: result.rows.map((row) => ({
        design: row.design,
        expected: row.expected,
        measured: row.measured ?? null,
        matches: row.matches,
        ...(row.skipped === undefined ? {} : { skipped: row.skipped }),
        durationMs: row.durationMs,
        ...(row.diagram === undefined ? {} : { diagram: row.diagram }),
      })),
    })),
  };
}
