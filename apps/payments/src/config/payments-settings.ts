import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell/admin';
import type { IdempotencySettings } from '@retry-safe/app-shell/config';
import { z } from 'zod';
import { PAYMENTS_IDEMPOTENCY, type PaymentsConfig } from './payments-config.js';

// The fields of `PUT /__config`: every setting but the retention and the store's own.
const SWITCHABLE = ['enabled', 'inFlight', 'leaseMs', 'renewLease', 'onStoreUnavailable'] as const;

/** The coordinator settings a scenario may switch on a running process (`PUT /__config`). */
export type PaymentsSettings = Pick<IdempotencySettings, (typeof SWITCHABLE)[number]>;

/**
 * Body of `PUT /__config`: each field is the same setting as its `IDEMPOTENCY_*` variable, with the same range
 * (`enabled`, `inFlight`, `leaseMs`, `renewLease`, `onStoreUnavailable`); a field left out keeps the start-up value.
 */
export const SettingsOverridesSchema = z.strictObject(PAYMENTS_IDEMPOTENCY.overrides(SWITCHABLE));

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
