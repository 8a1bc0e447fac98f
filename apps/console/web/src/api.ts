/** The console's API as the page calls it: JSON in, JSON out, a problem's `detail` as the error's message. */
import type {
  PaymentRequestBody,
  RunRequest,
  RunView,
  ScenarioView,
  StatusView,
} from '../../src/runs/console-api.js';

export type * from '../../src/runs/console-api.js';

async function call<T>(path: string, init?: { method: string; body: unknown }): Promise<T> {
  const res = await fetch(path, {
    method: init?.method ?? 'GET',
    ...(init === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
  });
  const body = (await res.json().catch(() => undefined)) as { detail?: string; title?: string } | undefined;
  if (!res.ok) throw new Error(body?.detail ?? body?.title ?? `${path} answered ${res.status}`);
  return body as T;
}

export const api = {
  status: () => call<StatusView>('/api/status'),
  scenarios: () => call<ScenarioView[]>('/api/scenarios'),
  run: (request: RunRequest) => call<{ id: string }>('/api/runs', { method: 'POST', body: request }),
  pay: (request: PaymentRequestBody) =>
    call<{ id: string }>('/api/payments', { method: 'POST', body: request }),
  view: (id: string) => call<RunView>(`/api/runs/${id}`),
  latest: (scenario: string) => call<{ run: RunView | null }>(`/api/scenarios/${scenario}/latest-run`),
};

/**
 * The newest run of `scenario` to `onView`, followed while it runs: a screen opened again (another scenario was
 * looked at meanwhile) shows where its run is.
 */
export async function resume(scenario: string, onView: (view: RunView) => void): Promise<void> {
  const { run } = await api.latest(scenario);
  if (run === null) return;
  onView(run);
  if (run.state === 'running') await follow(run.id, onView);
}

/** Polls a run every 250 ms, handing each view to `onView`, until it is no longer running. */
export async function follow(id: string, onView: (view: RunView) => void): Promise<RunView> {
  for (;;) {
    const view = await api.view(id);
    onView(view);
    if (view.state !== 'running') return view;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
