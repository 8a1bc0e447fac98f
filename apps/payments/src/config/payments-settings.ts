import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell';
import { IDEMPOTENCY_LIMITS, InFlightMode, StoreUnavailablePolicy } from '@retry-safe/idempotency';
import { z } from 'zod';
import { MAX_LEASE_MS, type IdempotencySettings, type PaymentsConfig } from './payments-config.js';

/** The coordinator settings a scenario may switch on a running process (`PUT /__config`). */
export type PaymentsSettings = Pick<
  IdempotencySettings,
  'enabled' | 'inFlight' | 'leaseMs' | 'renewLease' | 'onStoreUnavailable'
>;

/**
 * Body of `PUT /__config`: each field is the same setting as its `IDEMPOTENCY_*` variable, with the same range; a
 * field left out keeps the start-up value.
 */
export const SettingsOverridesSchema = z.strictObject({
  /** `IDEMPOTENCY_ENABLED`. */
  enabled: z.boolean().optional(),
  /** `IDEMPOTENCY_IN_FLIGHT`. */
  inFlight: z.enum([InFlightMode.Raise, InFlightMode.Wait, InFlightMode.Run]).optional(),
  /** `IDEMPOTENCY_LEASE_MS`. */
  leaseMs: z.number().int().min(IDEMPOTENCY_LIMITS.leaseMs.min).max(MAX_LEASE_MS).optional(),
  /** `IDEMPOTENCY_RENEW_LEASE`. */
  renewLease: z.boolean().optional(),
  /** `IDEMPOTENCY_ON_STORE_UNAVAILABLE`. */
  onStoreUnavailable: z.enum([StoreUnavailablePolicy.FailClosed, StoreUnavailablePolicy.FailOpen]).optional(),
});

/** payments' runtime settings: the start-up `IDEMPOTENCY_*` settings a scenario may switch. */
export function paymentsSettings(config: PaymentsConfig): RuntimeSettingsDefinition<PaymentsSettings> {
  const { enabled, inFlight, leaseMs, renewLease, onStoreUnavailable } = config.idempotency;
  return {
    schema: SettingsOverridesSchema,
    initial: { enabled, inFlight, leaseMs, renewLease, onStoreUnavailable },
  };
}

/** The coordinator settings in force: the start-up ones with the scenario's overrides on top. */
export function idempotencyInForce(config: PaymentsConfig, current: PaymentsSettings): IdempotencySettings {
  return { ...config.idempotency, ...current };
}
