import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SCENARIOS, runRow, type Scenario } from '@retry-safe/scenarios';
import { StackService } from '../stack/stack.service.js';
import {
  RunState,
  type PaymentRequestBody,
  type PaymentTrace,
  type RowView,
  type RunRequest,
  type RunView,
  type ScenarioView,
  type StepView,
} from './console-api.js';
import { ConsoleError, ConsoleErrorCode } from './console-errors.js';
import { explorerScenario } from './payment-explorer.js';

/** A run as it is kept while it goes on (the view is built from it). */
interface Run {
  readonly id: string;
  readonly scenario: string;
  readonly startedAt: number;
  state: RunState;
  endedAt?: number;
  error?: string;
  readonly rows: RowView[];
  readonly steps: StepView[];
  trace?: PaymentTrace;
}

/** How many finished runs are kept for the page to read. */
const KEPT_RUNS = 50;

/**
 * Runs scenarios (a row or all of them) and explorer payments on the console's stack, one at a time (each row
 * resets the stack they share), and keeps what the page polls: the rows' state, the growing diagrams, the steps.
 */
@Injectable()
export class RunsService {
  private readonly runs = new Map<string, Run>();
  private active: Run | undefined;
  /** The order each explorer key paid: a second payment with the key pays it again (and is replayed). */
  private readonly explorerOrders = new Map<string, string>();

  constructor(private readonly stack: StackService) {}

  /** `GET /api/scenarios`. */
  scenarios(): ScenarioView[] {
    return SCENARIOS.map(({ name, title, lesson, columns, rows }) => ({
      name,
      title,
      lesson,
      columns,
      rows: rows.map(({ design, expected }) => ({ design, expected })),
    }));
  }

  /** Starts a scenario (or one of its rows); its id. */
  startScenario(request: RunRequest): string {
    const scenario = SCENARIOS.find((s) => s.name === request.scenario);
    if (scenario === undefined) {
      throw new ConsoleError(ConsoleErrorCode.UnknownScenario, `no scenario named ${request.scenario}`);
    }
    const indexes = scenario.rows
      .map((_, i) => i)
      .filter((i) => request.row === undefined || i === request.row);
    if (indexes.length === 0) {
      throw new ConsoleError(ConsoleErrorCode.UnknownScenario, `${scenario.name} has no row ${request.row}`);
    }
    return this.start(scenario, indexes);
  }

  /** Starts an explorer payment; its id. */
  startPayment(body: PaymentRequestBody): string {
    this.stack.running();
    const scenario = explorerScenario(body, {
      spans: () => this.stack.spans(),
      orders: this.explorerOrders,
    });
    return this.start(scenario as Scenario<unknown>, [0]);
  }

  /** The newest run of `scenario` (`explorer` for the explorer's payments), so a page opened again shows it. */
  latest(scenario: string): RunView | undefined {
    const newest = [...this.runs.values()].findLast((run) => run.scenario === scenario);
    return newest === undefined ? undefined : this.view(newest.id);
  }

  /** `GET /api/runs/{id}`. */
  view(id: string): RunView {
    const run = this.runs.get(id);
    if (run === undefined) throw new ConsoleError(ConsoleErrorCode.UnknownRun, `no run ${id}`);
    return {
      id: run.id,
      scenario: run.scenario,
      state: run.state,
      elapsedMs: (run.endedAt ?? Date.now()) - run.startedAt,
      rows: run.rows,
      steps: run.steps,
      ...(run.error === undefined ? {} : { error: run.error }),
      ...(run.trace === undefined ? {} : { trace: run.trace }),
    };
  }

  private start(scenario: Scenario<unknown>, indexes: readonly number[]): string {
    const { target } = this.stack.running();
    if (this.active !== undefined) {
      throw new ConsoleError(ConsoleErrorCode.RunInProgress, `${this.active.scenario} is still running`);
    }
    const run: Run = {
      id: randomUUID(),
      scenario: scenario.name,
      startedAt: Date.now(),
      state: RunState.Running,
      rows: indexes.map((i) => {
        const row = scenario.rows[i] as Scenario<unknown>['rows'][number];
        return { design: row.design, expected: [row.design, ...row.expected], state: RunState.Waiting };
      }),
      steps: [],
    };
    this.keep(run);
    this.active = run;
    void this.play(run, scenario, indexes, target).finally(() => {
      run.endedAt = Date.now();
      this.active = undefined;
    });
    return run.id;
  }

  /** Runs the rows one after the other; a row that throws fails the run (the stack is reset for the next one). */
  private async play(
    run: Run,
    scenario: Scenario<unknown>,
    indexes: readonly number[],
    target: ReturnType<StackService['running']>['target'],
  ): Promise<void> {
    const step = (text: string): void => {
      run.steps.push({ atMs: Date.now() - run.startedAt, text });
    };
    for (const [position, index] of indexes.entries()) {
      const row = scenario.rows[index] as Scenario<unknown>['rows'][number];
      const update = (change: Partial<RowView>): void => {
        run.rows[position] = { ...(run.rows[position] as RowView), ...change };
      };
      update({ state: RunState.Running });
      this.stack.clearSpans();
      try {
        const result = await runRow(scenario, row, target, {
          onStep: step,
          onDiagram: (diagram) => update({ diagram }),
        });
        // The view only: a row's raw data (answers, ledgers) stays here.
        const { measured, skipped, diagram, matches, durationMs } = result;
        update({
          state: skipped === undefined ? RunState.Done : RunState.Failed,
          matches,
          durationMs,
          ...(measured === undefined ? {} : { measured }),
          ...(diagram === undefined ? {} : { diagram }),
          ...(skipped === undefined ? {} : { skipped, error: `not run here: ${skipped}` }),
        });
        if (scenario.name === 'explorer') run.trace = result.data as PaymentTrace;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        step(`${row.design}: FAILED: ${message}`);
        update({ state: RunState.Failed, error: message });
        run.state = RunState.Failed;
        run.error = `${row.design}: ${message}`;
        await target.reset().catch(() => {});
        return;
      }
    }
    run.state = RunState.Done;
  }

  private keep(run: Run): void {
    this.runs.set(run.id, run);
    for (const id of this.runs.keys()) {
      if (this.runs.size <= KEPT_RUNS) break;
      this.runs.delete(id);
    }
  }
}
