import { Inject, Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { SettingsInvalidError } from '../common/worker-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/** Body of `PUT /__config`: what a scenario may switch on a running worker (`IDEMPOTENCY_ENABLED`). */
export const SettingsOverridesSchema = z.strictObject({
  /** `IDEMPOTENCY_ENABLED`. */
  enabled: z.boolean().optional(),
});
/** A validated `PUT /__config` body. */
export type SettingsOverrides = z.output<typeof SettingsOverridesSchema>;

/** What `GET /__config` answers. */
export interface SettingsSnapshot {
  readonly settings: { readonly enabled: boolean };
  readonly overrides: SettingsOverrides;
}

/**
 * The settings in force: `IDEMPOTENCY_ENABLED` from start-up, or the override of `PUT /__config` (a route that
 * exists only with `FAULTS_ENABLED=true`). The sender reads it on every delivery.
 */
@Injectable()
export class RuntimeSettings {
  private readonly logger = new Logger(RuntimeSettings.name);
  private overrides: SettingsOverrides = {};

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get idempotencyEnabled(): boolean {
    return this.overrides.enabled ?? this.config.idempotency.enabled;
  }

  /**
   * Validates and replaces every override (a field left out goes back to its start-up value).
   * @throws {@link SettingsInvalidError} for a body that does not match {@link SettingsOverridesSchema}.
   */
  replace(body: unknown): SettingsSnapshot {
    const parsed = SettingsOverridesSchema.safeParse(body);
    if (!parsed.success) {
      throw new SettingsInvalidError(
        parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
        { cause: parsed.error },
      );
    }
    this.overrides = { ...parsed.data };
    this.logger.warn('settings overridden (PUT /__config)', { overrides: this.overrides });
    return this.snapshot();
  }

  /** Back to the start-up settings. */
  reset(): void {
    this.overrides = {};
  }

  snapshot(): SettingsSnapshot {
    return { settings: { enabled: this.idempotencyEnabled }, overrides: { ...this.overrides } };
  }
}
