import { Inject, Injectable, Logger } from '@nestjs/common';
import { InFlightMode, StoreUnavailablePolicy } from '@retry-safe/idempotency';
import { z } from 'zod';
import { PAYMENTS_CONFIG, type IdempotencySettings, type PaymentsConfig } from '../config/payments-config.js';

/**
 * Body of `PUT /__config`: the coordinator settings a scenario may switch on a running process. Each field is the
 * same setting as its `IDEMPOTENCY_*` variable; a field left out keeps the start-up value.
 */
export const SettingsOverridesSchema = z.strictObject({
  /** `IDEMPOTENCY_ENABLED`. */
  enabled: z.boolean().optional(),
  /** `IDEMPOTENCY_IN_FLIGHT`. */
  inFlight: z.enum([InFlightMode.Raise, InFlightMode.Wait, InFlightMode.Run]).optional(),
  /** `IDEMPOTENCY_LEASE_MS`. */
  leaseMs: z.number().int().min(10).max(3_600_000).optional(),
  /** `IDEMPOTENCY_RENEW_LEASE`. */
  renewLease: z.boolean().optional(),
  /** `IDEMPOTENCY_ON_STORE_UNAVAILABLE`. */
  onStoreUnavailable: z.enum([StoreUnavailablePolicy.FailClosed, StoreUnavailablePolicy.FailOpen]).optional(),
});
/** A validated `PUT /__config` body. */
export type SettingsOverrides = z.output<typeof SettingsOverridesSchema>;

/** What `GET /__config` answers. */
export interface SettingsSnapshot {
  /** The settings in force. */
  readonly settings: Pick<
    IdempotencySettings,
    'enabled' | 'inFlight' | 'leaseMs' | 'renewLease' | 'onStoreUnavailable'
  >;
  /** What `PUT /__config` changed from the start-up settings (empty after `DELETE /__config`). */
  readonly overrides: SettingsOverrides;
}

/**
 * The coordinator settings in force: the start-up `IDEMPOTENCY_*` settings, with the overrides of `PUT /__config`
 * on top (that route exists only with `FAULTS_ENABLED=true`). Read on every call, so a scenario can compare designs
 * on one running process instead of restarting it.
 */
@Injectable()
export class RuntimeSettings {
  private readonly logger = new Logger(RuntimeSettings.name);
  private overrides: SettingsOverrides = {};

  constructor(@Inject(PAYMENTS_CONFIG) private readonly config: PaymentsConfig) {}

  /** The start-up settings with the current overrides applied. */
  get idempotency(): IdempotencySettings {
    return { ...this.config.idempotency, ...this.overrides };
  }

  /** Replaces every override (a field left out goes back to its start-up value). */
  replace(overrides: SettingsOverrides): SettingsSnapshot {
    this.overrides = { ...overrides };
    this.logger.warn({ msg: 'idempotency settings overridden (PUT /__config)', overrides: this.overrides });
    return this.snapshot();
  }

  /** Back to the start-up settings. */
  reset(): void {
    this.overrides = {};
  }

  snapshot(): SettingsSnapshot {
    const { enabled, inFlight, leaseMs, renewLease, onStoreUnavailable } = this.idempotency;
    return {
      settings: { enabled, inFlight, leaseMs, renewLease, onStoreUnavailable },
      overrides: { ...this.overrides },
    };
  }
}
