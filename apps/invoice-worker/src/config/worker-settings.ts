import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell/admin';
import { z } from 'zod';
import { RetryMode } from '../retries/backoff-policy.js';
import { WORKER_IDEMPOTENCY, type AppConfig } from './app-config.js';

/** What a scenario may switch on a running worker (`PUT /__config`). */
export interface WorkerSettings {
  /** `IDEMPOTENCY_ENABLED`; `false` is the unprotected design: every delivery sends. */
  readonly enabled: boolean;
  /**
   * Who schedules retries: `horizon` (always, outside scenarios) or `bullmq-attempts`, the demonstration of the
   * design the horizon replaces (no variable sets it).
   */
  readonly retryMode: RetryMode;
}

/**
 * Body of `PUT /__config`: `{"enabled": false}` (the unprotected design), `{"retryMode": "bullmq-attempts"}` (no
 * retry horizon), or `{}` for the start-up settings.
 */
export const SettingsOverridesSchema = z.strictObject({
  ...WORKER_IDEMPOTENCY.overrides(['enabled']),
  retryMode: z.enum([RetryMode.Horizon, RetryMode.BullmqAttempts]).optional(),
});

/** The worker's runtime settings: `IDEMPOTENCY_ENABLED` and the `horizon` from start-up, switchable by a scenario. */
export function workerSettings(config: AppConfig): RuntimeSettingsDefinition<WorkerSettings> {
  return {
    schema: SettingsOverridesSchema,
    initial: { enabled: config.idempotency.enabled, retryMode: RetryMode.Horizon },
  };
}
