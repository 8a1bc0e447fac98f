import { z } from 'zod';

/** Whether the provider deduplicates by `Idempotency-Key` (like Stripe) or charges on every call. */
export const DedupMode = { On: 'on', Off: 'off' } as const;
/** One of {@link DedupMode}'s values. */
export type DedupMode = (typeof DedupMode)[keyof typeof DedupMode];

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be between 1 and 65535')
  .max(65_535, 'must be between 1 and 65535');

/** The environment provider-sim reads, once, at start-up. */
const EnvSchema = z.object({
  PROVIDER_PORT: port.default(3003),
  PROVIDER_DEDUP: z
    .enum([DedupMode.On, DedupMode.Off], { error: "must be 'on' or 'off'" })
    .default(DedupMode.On),
  PROVIDER_LATENCY_MS: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must be 0 or more')
    .max(60_000, 'must be at most 60000')
    .default(0),
  FAULTS_ENABLED: z.stringbool({ error: "must be 'true' or 'false'" }).default(false),
});

/** Validated settings of provider-sim. */
export interface AppConfig {
  /** Port of the HTTP listener (`PROVIDER_PORT`, default 3003). */
  readonly port: number;
  /** `PROVIDER_DEDUP` (default `on`): `off` charges and sends on every call, as a provider without idempotency. */
  readonly dedup: DedupMode;
  /** `PROVIDER_LATENCY_MS` (default 0): how long every charge or email takes before it is recorded. */
  readonly latencyMs: number;
  /** `FAULTS_ENABLED` (default false): mounts the fault-injection rules and their `/__faults` admin routes. */
  readonly faultsEnabled: boolean;
}

/** DI token of the {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** The environment is invalid; `message` names every offending variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment. Called once by `main.ts` (tests pass their own record).
 * @throws {@link ConfigError} listing every invalid variable with the value it got.
 */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `  ${name}=${JSON.stringify(env[name] ?? null)}: ${issue.message}`;
    });
    throw new ConfigError(`provider-sim: invalid environment\n${lines.join('\n')}`, { cause: parsed.error });
  }
  const e = parsed.data;
  return {
    port: e.PROVIDER_PORT,
    dedup: e.PROVIDER_DEDUP,
    latencyMs: e.PROVIDER_LATENCY_MS,
    faultsEnabled: e.FAULTS_ENABLED,
  };
}
