/** The console page: the stack's state, the scenarios (one at a time), the payment explorer. */
import { useEffect, useState } from 'preact/hooks';
import { api, type ScenarioView, type StatusView } from './api.js';
import { Explorer } from './explorer.js';
import { ScenarioPanel } from './scenario-panel.js';

type Screen = { kind: 'scenario'; name: string } | { kind: 'explorer' };

export function App() {
  const [status, setStatus] = useState<StatusView | undefined>(undefined);
  const [scenarios, setScenarios] = useState<ScenarioView[]>([]);
  const [screen, setScreen] = useState<Screen>({ kind: 'scenario', name: 'chain' });
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    api.scenarios().then(setScenarios, (e: unknown) => setError(String(e)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (): Promise<void> => {
      const next = await api.status().catch((e: unknown) => {
        setError(`the console does not answer: ${String(e)}`);
        return undefined;
      });
      if (next !== undefined) setStatus(next);
      if (next?.stack !== 'up' && next?.stack !== 'failed') timer = setTimeout(() => void poll(), 500);
    };
    void poll();
    return () => clearTimeout(timer);
  }, []);

  const current = screen.kind === 'scenario' ? scenarios.find((s) => s.name === screen.name) : undefined;
  const stackUp = status?.stack === 'up';
  return (
    <>
      <header>
        <h1>retry-safe console</h1>
        <StackBanner status={status} />
      </header>
      {error !== undefined && (
        <p class="progress failed" role="alert">
          {error}
        </p>
      )}
      <div class="layout">
        <nav aria-label="Screens">
          <h2 class="nav-title">Scenarios</h2>
          <ul>
            {scenarios.map((s) => (
              <li key={s.name}>
                <button
                  type="button"
                  aria-current={screen.kind === 'scenario' && screen.name === s.name ? 'page' : undefined}
                  onClick={() => setScreen({ kind: 'scenario', name: s.name })}
                  title={s.title}
                >
                  {s.name}
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="explorer-link"
            aria-current={screen.kind === 'explorer' ? 'page' : undefined}
            onClick={() => setScreen({ kind: 'explorer' })}
          >
            Payment explorer
          </button>
        </nav>
        <main>
          {screen.kind === 'explorer' ? (
            <Explorer stackUp={stackUp} />
          ) : (
            current !== undefined && <ScenarioPanel key={current.name} scenario={current} stackUp={stackUp} />
          )}
        </main>
      </div>
    </>
  );
}

function StackBanner({ status }: { status: StatusView | undefined }) {
  if (status === undefined) return <p class="stack">Connecting…</p>;
  const seconds = (status.elapsedMs / 1000).toFixed(0);
  if (status.stack === 'failed') {
    return (
      <p class="stack failed" role="alert">
        The stack did not start: {status.error}
      </p>
    );
  }
  if (status.stack === 'starting') {
    return (
      <p class="stack starting" role="status">
        <span class="spinner" aria-hidden="true" /> Starting the stack ({seconds} s):{' '}
        {status.log.at(-1) ?? 'Redis'}
      </p>
    );
  }
  return (
    <p class="stack up" role="status">
      Stack up: private Redis and PostgreSQL, five services, faults on
    </p>
  );
}
