/**
 * A scenario: a question ("what does a duplicate in flight cost?"), a table of designs (one row each) with the
 * numbers each design must produce, and the steps that measure them on a running stack. The e2e suites run these
 * definitions and assert the measured rows equal the expected ones; the runner (`pnpm scenarios`, `pnpm demo`)
 * prints the same measured tables. One definition, so the documented tables and the tested numbers cannot drift.
 */
import { sequenceDiagram, type TimedNote } from './diagram.js';
import type { ClientCall, HttpResult } from './http.js';
import { stepContext, type StepContext } from './step-context.js';
import type { FaultSnapshot, JournalEntry, ScenarioTarget, Service } from './target.js';

export { HOLD_MS, type HeldPayment, type PaymentRequest, type StepContext } from './step-context.js';

/** What a row's steps measured: its cells (after the design) and the raw data for finer assertions. */
export interface RowMeasure<D> {
  readonly cells: readonly string[];
  readonly data: D;
}

/** One design of a scenario. */
export interface ScenarioRow<D> {
  /** The first cell: the design. */
  readonly design: string;
  /** The cells after the design this design must produce. */
  readonly expected: readonly string[];
  run(ctx: StepContext): Promise<RowMeasure<D>>;
}

/** A scenario definition. */
export interface Scenario<D = unknown> {
  /** `keys`, `chain`...: the runner's argument and the name of `scenarios-out/<name>.md`. */
  readonly name: string;
  /** What happens, in one line. */
  readonly title: string;
  /** What the table teaches. */
  readonly lesson: string;
  /** Column headers, the design's first. */
  readonly columns: readonly string[];
  readonly needs?: {
    /** The invoice worker (`WORKER_URL`). */
    readonly worker?: boolean;
    /** A way to take Redis away (see `ScenarioTarget.redisControl`). */
    readonly redisControl?: boolean;
    /** A way to start a killed service again (see `ScenarioTarget.restartControl`). */
    readonly restart?: boolean;
  };
  readonly rows: ReadonlyArray<ScenarioRow<D>>;
}

/** Declares a scenario (typed rows). */
export function defineScenario<D>(scenario: Scenario<D>): Scenario<D> {
  return scenario;
}

/** The expected table of a scenario, rows of cells (the design first). */
export function expectedTable(scenario: Scenario<unknown>): string[][] {
  return scenario.rows.map((row) => [row.design, ...row.expected]);
}

/** What running one row gave. */
export interface RowResult<D = unknown> {
  readonly design: string;
  /** The expected row (design first). */
  readonly expected: readonly string[];
  /** The measured row (design first), or `undefined` when the row could not run here. */
  readonly measured?: readonly string[];
  /** Why the row could not run here (and how to run it). */
  readonly skipped?: string;
  readonly matches: boolean;
  readonly data?: D;
  /** Mermaid source of what happened. */
  readonly diagram?: string;
  readonly durationMs: number;
}

/** What running a whole scenario gave. */
export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly lesson: string;
  readonly columns: readonly string[];
  readonly rows: readonly RowResult[];
  /** Every row that ran matched, and none was skipped. */
  readonly matches: boolean;
}

/** Options of {@link runRow} and {@link runScenario}. */
export interface RunOptions {
  /** Receives each progress line. */
  onStep?: (line: string) => void;
  /** Draw the row's sequence diagram (reads every journal). @default true */
  diagram?: boolean;
  /**
   * Receives the row's diagram as it grows, while its steps run (the journals read every {@link watchMs}): a page
   * draws the requests as they happen. Only a diagram that changed is reported.
   */
  onDiagram?: (diagram: string) => void;
  /** How often {@link onDiagram} reads the journals. @default 250 */
  watchMs?: number;
}

/** Why `scenario` cannot run on `target`, or `undefined` when it can. */
export function unmetNeeds(scenario: Scenario<unknown>, target: ScenarioTarget): string | undefined {
  if (scenario.needs?.worker && target.urls.worker === undefined) {
    return 'needs the invoice worker: set WORKER_URL (pnpm stack starts it once built; compose runs it)';
  }
  if (scenario.needs?.redisControl && target.redisControl === undefined) {
    return (
      'needs to take Redis away, which this runner may not do on a stack it does not own. Run `pnpm demo`, or ' +
      'give the commands: REDIS_STOP_CMD="docker compose stop redis" REDIS_START_CMD="docker compose start redis" ' +
      'pnpm scenarios redis-down'
    );
  }
  if (scenario.needs?.restart && target.restartControl === undefined) {
    return 'needs to start a service again after killing it: run it on pnpm demo, pnpm stack or docker compose';
  }
  return undefined;
}

/** Runs one row on a clean target: resets it, runs the steps, reads the journals for the diagram. */
export async function runRow<D>(
  scenario: Scenario<D>,
  row: ScenarioRow<D>,
  target: ScenarioTarget,
  options: RunOptions = {},
): Promise<RowResult<D>> {
  const started = Date.now();
  const expected = [row.design, ...row.expected];
  const unmet = unmetNeeds(scenario, target);
  if (unmet !== undefined) {
    return { design: row.design, expected, skipped: unmet, matches: false, durationMs: 0 };
  }
  await target.reset();
  const calls: ClientCall[] = [];
  const notes: TimedNote[] = [];
  // Request ids of the row's set-up calls (its orders): not part of what the row shows, so not drawn.
  const setup = new Set<string>();
  // Journals kept before a service was killed (see StepContext.keepJournal).
  const kept: JournalEntry[] = [];
  const ctx = stepContext(
    target,
    calls,
    notes,
    setup,
    (message) => options.onStep?.(`[${scenario.name}] ${row.design}: ${message}`),
    kept,
  );
  const draw = (): Promise<string> => drawDiagram(target, calls, notes, setup, kept);
  const stopWatching = options.onDiagram === undefined ? undefined : watch(draw, options);
  const { cells, data } = await row.run(ctx).finally(() => stopWatching?.());
  const measured = [row.design, ...cells];
  const matches = measured.length === expected.length && measured.every((cell, i) => cell === expected[i]);
  let diagram: string | undefined;
  if (options.diagram ?? true) diagram = await draw();
  if (diagram !== undefined) options.onDiagram?.(diagram);
  return {
    design: row.design,
    expected,
    measured,
    matches,
    data,
    ...(diagram === undefined ? {} : { diagram }),
    durationMs: Date.now() - started,
  };
}

/** Runs every row of `scenario`, then leaves the target reset. */
export async function runScenario(
  scenario: Scenario<unknown>,
  target: ScenarioTarget,
  options: RunOptions = {},
): Promise<ScenarioResult> {
  const rows: RowResult[] = [];
  for (const row of scenario.rows) rows.push(await runRow(scenario, row, target, options));
  if (unmetNeeds(scenario, target) === undefined) await target.reset();
  return {
    name: scenario.name,
    title: scenario.title,
    lesson: scenario.lesson,
    columns: scenario.columns,
    rows,
    matches: rows.every((row) => row.matches),
  };
}

/** Reports the diagram every `watchMs` while it changes; returns the stop. A journal that cannot be read is skipped. */
function watch(draw: () => Promise<string>, options: RunOptions): () => void {
  let last = '';
  let stopped = false;
  const tick = async (): Promise<void> => {
    // A service a step killed answers nothing until it is back: that moment is simply not drawn.
    const diagram = await draw().catch(() => last);
    if (!stopped && diagram !== last) options.onDiagram?.(diagram);
    last = diagram;
    if (!stopped) timer = setTimeout(() => void tick(), options.watchMs ?? 250);
  };
  let timer = setTimeout(() => void tick(), options.watchMs ?? 250);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

async function drawDiagram(
  target: ScenarioTarget,
  calls: ClientCall[],
  notes: TimedNote[],
  setup: ReadonlySet<string>,
  kept: readonly JournalEntry[],
): Promise<string> {
  const services: Service[] = ['gateway', 'orders', 'payments', 'provider'];
  if (target.urls.worker !== undefined) services.push('worker');
  const journal: JournalEntry[] = [];
  // An entry kept before a kill and still in the journal (no kill came after all) is drawn once.
  const seen = new Set<string>();
  const add = (entries: readonly JournalEntry[]): void => {
    for (const entry of entries) {
      const id = `${entry.service} ${entry.requestId} ${entry.startedAt}`;
      if (setup.has(entry.requestId) || seen.has(id)) continue;
      seen.add(id);
      journal.push(entry);
    }
  };
  add(kept);
  const faults: Partial<Record<Service, FaultSnapshot>> = {};
  await Promise.all(
    services.map(async (service) => {
      const entries = await target.journal(service);
      add(entries);
      faults[service] = await target.faults(service);
    }),
  );
  return sequenceDiagram({ calls, journal, faults, notes });
}

/** `201, replayed`-style summary of an answer: status, problem code, replay marker. */
export function describeAnswer(res: HttpResult): string {
  const code = typeof res.body?.code === 'string' ? ` ${res.body.code as string}` : '';
  return `${res.status}${code}`;
}
