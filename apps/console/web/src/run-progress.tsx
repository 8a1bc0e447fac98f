/** A run's progress as a person reads it: the step running now and the time it took so far, or why it failed. */
import type { RunView } from './api.js';

export function RunProgress({ run, error }: { run: RunView | undefined; error: string | undefined }) {
  if (error !== undefined) {
    return (
      <p class="progress failed" role="alert">
        Failed: {error}
      </p>
    );
  }
  if (run === undefined) return null;
  const last = run.steps.at(-1)?.text ?? 'starting';
  const seconds = (run.elapsedMs / 1000).toFixed(1);
  if (run.state === 'failed') {
    return (
      <p class="progress failed" role="alert">
        Failed after {seconds} s: {run.error ?? last}
      </p>
    );
  }
  return (
    <p class={`progress ${run.state}`} role="status" aria-live="polite">
      {run.state === 'running' ? (
        <>
          <span class="spinner" aria-hidden="true" /> {last} ({seconds} s)
        </>
      ) : (
        <>Done in {seconds} s</>
      )}
    </p>
  );
}
