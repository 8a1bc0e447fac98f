import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell/admin';
import { z } from 'zod';
import { DedupMode, type AppConfig } from './app-config.js';

/** What a scenario may switch on a running provider-sim (`PUT /__config`). */
export interface ProviderSettings {
  /** `PROVIDER_DEDUP`. */
  readonly dedup: DedupMode;
}

/** Body of `PUT /__config`: `{"dedup": "on" | "off"}`, or `{}` for the start-up mode. */
export const SettingsOverridesSchema = z.strictObject({
  dedup: z.enum([DedupMode.On, DedupMode.Off], { error: "must be 'on' or 'off'" }).optional(),
});

/** provider-sim's runtime settings: `PROVIDER_DEDUP` from start-up, switchable by a scenario. */
export function providerSettings(config: AppConfig): RuntimeSettingsDefinition<ProviderSettings> {
  return { schema: SettingsOverridesSchema, initial: { dedup: config.dedup } };
}
