import { expect, it } from '@jest/globals';
import {
  expectedTable,
  runRow,
  type RowResult,
  type Scenario,
  type ScenarioRow,
  type ScenarioTarget,
} from '@retry-safe/scenarios';

/** The row of `scenario` whose design is `design`; throws when the scenario has none. */
export function rowOf<D>(scenario: Scenario<D>, design: string): ScenarioRow<D> {
  const row = scenario.rows.find((r) => r.design === design);
  if (row === undefined) throw new Error(`${scenario.name} has no row ${design}`);
  return row;
}

/**
 * A scenario's suite: its table as the runner prints it must be `table` (the documented contract), then one test
 * per row (`title` with `%s` for the design) runs the row on `target()`, expects the measured row to be the
 * expected one, and hands what the row measured (its data, the row, the whole result) to `check` for what the
 * table does not show.
 */
export function itRunsEveryRow<D>(
  scenario: Scenario<D>,
  table: readonly (readonly string[])[],
  title: string,
  target: () => ScenarioTarget,
  check: (data: D, row: ScenarioRow<D>, result: RowResult<D>) => void,
): void {
  it('documents the table the runner prints', () => {
    expect(expectedTable(scenario as Scenario<unknown>)).toEqual(table);
  });

  it.each(scenario.rows.map((row) => [row.design, row] as const))(title, async (_design, row) => {
    const result = await runRow(scenario, row, target());
    expect(result.measured).toEqual(result.expected);
    // A row that ran (its measured row is the expected one) has its data.
    check(result.data as D, row, result);
  });
}
