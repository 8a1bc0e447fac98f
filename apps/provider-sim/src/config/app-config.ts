import {
  configLoader,
  envInt,
  envPort,
  shellEnv,
  type ConfigLoader,
  type ListenConfig,
} from '@retry-safe/app-shell/config';
import { z } from 'zod';

/** Whether the provider deduplicates by `Idempotency-Key` (like Stripe) or charges on every call. */
export const DedupMode = { On: 'on', Off: 'off' } as const;
/** One of {@link DedupMode}'s values. */
export type DedupMode = (typeof DedupMode)[keyof typeof DedupMode];

/** The environment provider-sim reads, once, at start-up. */
const EnvSchema = z.object({
  PROVIDER_PORT: envPort().default(3003),
  PROVIDER_DEDUP: z
    .enum([DedupMode.On, DedupMode.Off], { error: "must be 'on' or 'off'" })
    .default(DedupMode.On),
  PROVIDER_LATENCY_MS: envInt(0, 60_000).default(0),
  ...shellEnv('127.0.0.1'),
});

/** Validated settings of provider-sim. */
export interface AppConfig extends ListenConfig {
  /** `PROVIDER_PORT` (default 3003); `HOST` (default `127.0.0.1`); `DRAIN_TIMEOUT_MS`. */
  readonly port: number;
  /** `PROVIDER_DEDUP` (default `on`): `off` charges and sends on every call, as a provider without idempotency. */
  readonly dedup: DedupMode;
  /** `PROVIDER_LATENCY_MS` (default 0): how long every charge or email takes before it is recorded. */
  readonly latencyMs: number;
}

/** DI token of the {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Validates the environment into the {@link AppConfig}. */
export const loadConfig: ConfigLoader<AppConfig> = configLoader(
  EnvSchema,
  { service: 'provider-sim', portVariable: 'PROVIDER_PORT' },
  (e) => ({
    dedup: e.PROVIDER_DEDUP,
    latencyMs: e.PROVIDER_LATENCY_MS,
  }),
);
