/** One scenario: its question, its designs (Run one or all), the table measured beside expected, the diagrams. */
import { useEffect, useState } from 'preact/hooks';
import { api, follow, resume, type RowView, type RunView, type ScenarioView } from './api.js';
import { RunProgress } from './run-progress.js';
import { SequenceDiagram } from './sequence-diagram.js';

export function ScenarioPanel({ scenario, stackUp }: { scenario: ScenarioView; stackUp: boolean }) {
  const [run, setRun] = useState<RunView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const running = run?.state === 'running';
  useEffect(() => {
    resume(scenario.name, setRun).catch((e: unknown) => setError(String(e)));
  }, [scenario.name]);

  const start = async (row?: number): Promise<void> => {
    setError(undefined);
    try {
      const { id } = await api.run(
        row === undefined ? { scenario: scenario.name } : { scenario: scenario.name, row },
      );
      await follow(id, setRun);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <section class="scenario" aria-labelledby={`title-${scenario.name}`}>
      <h2 id={`title-${scenario.name}`}>
        <code>{scenario.name}</code> {scenario.title}
      </h2>
      <p class="lesson">{scenario.lesson}</p>
      <div class="actions">
        <button type="button" disabled={running || !stackUp} onClick={() => void start()}>
          Run all {scenario.rows.length} rows
        </button>
      </div>
      <RunProgress run={run} error={error} />
      <ResultsTable
        scenario={scenario}
        run={run}
        disabled={running || !stackUp}
        onRun={(row) => void start(row)}
      />
      {run?.scenario === scenario.name &&
        run.rows.map((row) => (
          <div key={row.design} class="row-diagram">
            <h3>
              {row.design} <small>{row.state}</small>
            </h3>
            {row.error !== undefined && <p class="progress failed">{row.error}</p>}
            {row.diagram !== undefined && (
              <SequenceDiagram
                source={row.diagram}
                label={`Sequence diagram of ${scenario.name}: ${row.design}`}
              />
            )}
          </div>
        ))}
    </section>
  );
}

/** Each design's measured cells beside its expected ones, and its Run button. */
function ResultsTable(props: {
  scenario: ScenarioView;
  run: RunView | undefined;
  disabled: boolean;
  onRun: (row: number) => void;
}) {
  const { scenario, run, disabled, onRun } = props;
  const rowOf = (design: string): RowView | undefined =>
    run?.scenario === scenario.name ? run.rows.find((r) => r.design === design) : undefined;
  return (
    <table>
      <caption>Measured beside expected</caption>
      <thead>
        <tr>
          <th scope="col">{scenario.columns[0]}</th>
          {scenario.columns.slice(1).map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
          <th scope="col">
            <span class="sr-only">Run</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {scenario.rows.map((design, index) => {
          const row = rowOf(design.design);
          return (
            <tr key={design.design} class={row?.state ?? ''}>
              <th scope="row">{design.design}</th>
              {design.expected.map((expected, i) => {
                const measured = row?.measured?.[i + 1];
                const ok = measured === undefined || measured === expected;
                return (
                  <td key={i} data-column={scenario.columns[i + 1]} class={ok ? '' : 'mismatch'}>
                    <span class="measured" data-measured={measured ?? ''}>
                      {measured ?? (row?.state === 'running' ? '…' : '–')}
                    </span>{' '}
                    <span class="expected">expected {expected}</span>
                  </td>
                );
              })}
              <td>
                <button
                  type="button"
                  aria-label={`Run ${scenario.name}: ${design.design}`}
                  disabled={disabled}
                  onClick={() => onRun(index)}
                >
                  Run
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
