import { Logger } from '@nestjs/common';
import type { z } from 'zod';
import { ValidationFailedError } from '../http/errors.js';

/** What an app lets a scenario switch on a running process (`PUT /__config`), and its start-up values. */
export interface RuntimeSettingsDefinition<S extends object> {
  /**
   * Body of `PUT /__config`: a strict object whose fields are all optional, each the same setting as its
   * environment variable. A field left out keeps its start-up value.
   */
  readonly schema: z.ZodType<Partial<S>>;
  /** The settings at start-up, from the validated config. */
  readonly initial: S;
  /** Called after each `PUT /__config`, e.g. to log a loud warning for a demonstration design. */
  readonly onReplace?: (settings: S, overrides: Partial<S>, logger: Logger) => void;
}

/** What `GET /__config` answers. */
export interface SettingsSnapshot<S extends object> {
  /** The settings in force. */
  readonly settings: S;
  /** What `PUT /__config` changed from the start-up settings (empty after `DELETE /__config`). */
  readonly overrides: Partial<S>;
}

/**
 * The settings in force: the start-up values with the overrides of `PUT /__config` on top (that route exists only
 * with `FAULTS_ENABLED=true`). The one provider of an app's settings: features read {@link RuntimeSettings.current}
 * on every call, so a scenario can compare designs on one running process instead of restarting it.
 * @typeParam S - the app's settings (its `RuntimeSettingsDefinition`), given where it is injected.
 */
export class RuntimeSettings<S extends object = Record<string, unknown>> {
  private readonly logger = new Logger('RuntimeSettings');
  private overrides: Partial<S> = {};
  // Read on every request: built when the overrides change, not per read.
  private inForce: S;

  constructor(private readonly definition: RuntimeSettingsDefinition<S>) {
    this.inForce = Object.freeze({ ...definition.initial });
  }

  /** The start-up settings with the current overrides applied (frozen: change them with `PUT /__config`). */
  get current(): S {
    return this.inForce;
  }

  /**
   * Validates `body` and replaces every override with it (a field left out goes back to its start-up value).
   * @throws {@link ValidationFailedError} (400 `validation_failed`) for a body the schema refuses; nothing changes.
   */
  replace(body: unknown): SettingsSnapshot<S> {
    const parsed = this.definition.schema.safeParse(body);
    if (!parsed.success) {
      throw new ValidationFailedError(
        parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
        { cause: parsed.error },
      );
    }
    this.overrides = { ...parsed.data };
    this.inForce = Object.freeze({ ...this.definition.initial, ...this.overrides });
    this.logger.warn({ msg: 'settings overridden (PUT /__config)', overrides: this.overrides });
    this.definition.onReplace?.(this.current, this.overrides, this.logger);
    return this.snapshot();
  }

  /** Back to the start-up settings. */
  reset(): void {
    this.overrides = {};
    this.inForce = Object.freeze({ ...this.definition.initial });
  }

  snapshot(): SettingsSnapshot<S> {
    return { settings: { ...this.inForce }, overrides: { ...this.overrides } };
  }
}
