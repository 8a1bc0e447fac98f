import { Inject, Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { GATEWAY_CONFIG, KeyMode, type GatewayConfig } from '../config/gateway-config.js';

/** Body of `PUT /__config`: what a scenario may switch on a running gateway (`GATEWAY_KEY_MODE`). */
export const SettingsOverridesSchema = z.strictObject({
  /** `GATEWAY_KEY_MODE`. */
  keyMode: z.enum([KeyMode.Propagate, KeyMode.Regenerate]).optional(),
});
/** A validated `PUT /__config` body. */
export type SettingsOverrides = z.output<typeof SettingsOverridesSchema>;

/** What `GET /__config` answers. */
export interface SettingsSnapshot {
  readonly settings: { readonly keyMode: KeyMode };
  readonly overrides: SettingsOverrides;
}

/**
 * The settings in force: `GATEWAY_KEY_MODE` from start-up, or the override of `PUT /__config` (a route that exists
 * only with `FAULTS_ENABLED=true`). Read on every call, so a scenario can compare designs on a running gateway.
 */
@Injectable()
export class RuntimeSettings {
  private readonly logger = new Logger(RuntimeSettings.name);
  private overrides: SettingsOverrides = {};

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  get keyMode(): KeyMode {
    return this.overrides.keyMode ?? this.config.keyMode;
  }

  /** Replaces every override (a field left out goes back to its start-up value). */
  replace(overrides: SettingsOverrides): SettingsSnapshot {
    this.overrides = { ...overrides };
    if (this.keyMode === KeyMode.Regenerate) {
      this.logger.warn({
        msg: 'GATEWAY_KEY_MODE=regenerate set by PUT /__config: DEMONSTRATION MODE. Every attempt to orders carries a fresh idempotency key.',
      });
    }
    return this.snapshot();
  }

  /** Back to the start-up settings. */
  reset(): void {
    this.overrides = {};
  }

  snapshot(): SettingsSnapshot {
    return { settings: { keyMode: this.keyMode }, overrides: { ...this.overrides } };
  }
}
