import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, DedupMode, type AppConfig } from '../config/app-config.js';

/** Body of `PUT /__config`: what a scenario may switch on a running provider-sim (`PROVIDER_DEDUP`). */
export const SettingsOverridesSchema = z.strictObject({
  /** `PROVIDER_DEDUP`. */
  dedup: z.enum([DedupMode.On, DedupMode.Off], { error: "must be 'on' or 'off'" }).optional(),
});
/** A validated `PUT /__config` body. */
export type SettingsOverrides = z.output<typeof SettingsOverridesSchema>;

/** What `GET /__config` answers. */
export interface SettingsSnapshot {
  readonly settings: { readonly dedup: DedupMode };
  readonly overrides: SettingsOverrides;
}

/**
 * The settings in force: `PROVIDER_DEDUP` from start-up, or the override of `PUT /__config` (a route that exists only
 * with `FAULTS_ENABLED=true`). The ledgers read it on every call.
 */
@Injectable()
export class RuntimeSettings {
  private overrides: SettingsOverrides = {};

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get dedup(): DedupMode {
    return this.overrides.dedup ?? this.config.dedup;
  }

  /** Replaces every override (a field left out goes back to its start-up value). */
  replace(overrides: SettingsOverrides): SettingsSnapshot {
    this.overrides = { ...overrides };
    return this.snapshot();
  }

  /** Back to the start-up settings. */
  reset(): void {
    this.overrides = {};
  }

  snapshot(): SettingsSnapshot {
    return { settings: { dedup: this.dedup }, overrides: { ...this.overrides } };
  }
}
