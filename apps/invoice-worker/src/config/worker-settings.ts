import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell';
import { z } from 'zod';
import type { AppConfig } from './app-config.js';

/** What a scenario may switch on a running worker (`PUT /__config`). */
export interface WorkerSettings {
  /** `IDEMPOTENCY_ENABLED`; `false` is the unprotected design: every delivery sends. */
  readonly enabled: boolean;
}

/** Body of `PUT /__config`: `{"enabled": false}` (the unprotected design), or `{}` for the start-up setting. */
export const SettingsOverridesSchema = z.strictObject({
  enabled: z.boolean().optional(),
});

/** The worker's runtime settings: `IDEMPOTENCY_ENABLED` from start-up, switchable by a scenario. */
export function workerSettings(config: AppConfig): RuntimeSettingsDefinition<WorkerSettings> {
  return { schema: SettingsOverridesSchema, initial: { enabled: config.idempotency.enabled } };
}
