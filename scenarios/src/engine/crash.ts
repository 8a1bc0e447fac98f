/**
 * Crash windows in a scenario: a rule that SIGKILLs a service at one of its named fault points (method `JOB`, as
 * the worker's `JOB invoices/...`), and bringing it back. A restarted process starts with its start-up settings
 * and no fault rules, so the row sets its design again before the retry: the retry meets the same design as the
 * request that died.
 */
import { waitFor } from '@retry-safe/testing';
import { send } from './http.js';
import type { StepContext } from './step-context.js';
import type { ConfigurableService, FaultRule } from './target.js';

/** The rule that kills the service (SIGKILL: no answer, no shutdown) the first time it reaches `point`. */
export function killAt(point: string): FaultRule {
  return { method: 'JOB', path: point, at: 'after-handler', action: 'drop', times: 1 };
}

/**
 * Arms {@link killAt} on `service` (replacing its rules), keeping its journal first: the process and what it
 * journaled die together, and the row's diagram still shows what it did before.
 */
export async function armKill(ctx: StepContext, service: ConfigurableService, point: string): Promise<void> {
  await ctx.keepJournal(service);
  await ctx.target.setFaults(service, [killAt(point)]);
}

/** The rule that holds the step at `point` for `ms`, for its first `times` passes. */
export function holdAt(point: string, ms: number, times: number): FaultRule {
  return { method: 'JOB', path: point, at: 'after-handler', action: 'delay', ms, times };
}

/**
 * Waits for `service` to be gone (its kill rule fired), notes it, has it started again (the target's
 * `restartControl`), notes that, and sets `settings` on it again (`PUT /__config`).
 */
export async function bringBack(
  ctx: StepContext,
  service: ConfigurableService,
  point: string,
  settings: Record<string, unknown>,
): Promise<void> {
  const url = ctx.target.urls[service];
  const control = ctx.target.restartControl;
  if (url === undefined || control === undefined) throw new Error(`cannot restart ${service} here`);
  await waitFor(
    `${service} to die at ${point}`,
    async () => {
      if (!(await gone(ctx, service, url, point)))
        throw new Error(`${service} still answers, its kill rule armed`);
    },
    { timeoutMs: 15_000, intervalMs: 25 },
  );
  ctx.note(`${service} killed at ${point} (SIGKILL)`);
  ctx.step(`${service} killed at ${point}; starting it again (${control.description})`);
  await control.restart(service);
  ctx.note(`${service} running again`);
  if (Object.keys(settings).length > 0) await ctx.target.configure(service, settings);
}

/**
 * True once `service` is no longer the process the kill rule was armed on: it does not answer, or it answers
 * without the rule. A supervisor that restarts by itself (docker compose's `restart: unless-stopped`) can have it
 * back before the step that killed it returns (the gateway retries a keyed payment until orders answers again), so
 * an answer alone does not mean it never died; a process that started again has no fault rules.
 */
async function gone(
  ctx: StepContext,
  service: ConfigurableService,
  url: string,
  point: string,
): Promise<boolean> {
  const alive = await send(`${url}/health/live`, { timeoutMs: 1_000 }).then(
    () => true,
    () => false,
  );
  if (!alive) return true;
  const snapshot = await ctx.target.faults(service).catch(() => undefined);
  return (
    snapshot !== undefined && !snapshot.rules.some((rule) => rule.method === 'JOB' && rule.path === point)
  );
}
