import {
  configLoader,
  envBodyLimitBytes,
  envHttpUrls,
  envInternalToken,
  envOneOf,
  envPort,
  envRequestBudgetMs,
  shellEnv,
  upstreamConfigOf,
  upstreamEnv,
  type ConfigLoader,
  type ListenConfig,
  type UpstreamConfig,
} from '@retry-safe/app-shell/config';
import { z } from 'zod';
import { ApiTokens } from '../auth/api-tokens.js';

/** How the gateway fills `Idempotency-Key` on its calls to orders. */
export const KeyMode = {
  /** The client's key on the first call and on every retry: the safe design. */
  Propagate: 'propagate',
  /**
   * DEMONSTRATION ONLY: a fresh key on every attempt, as a gateway that mints its own keys would. A retry after a
   * lost response then looks like a new payment downstream, and charges again.
   */
  Regenerate: 'regenerate',
} as const;
/** One of {@link KeyMode}'s values. */
export type KeyMode = (typeof KeyMode)[keyof typeof KeyMode];

/** `METRICS_PORT` of the gateway by default: its own port is public, its metrics are not. */
export const DEFAULT_GATEWAY_METRICS_PORT = 9400;

/** `ADMIN_PORT` of the gateway by default: its own port is public, its `/__*` routes never are (loopback). */
export const DEFAULT_GATEWAY_ADMIN_PORT = 9401;

/** The environment the gateway reads, once, at start-up. */
const EnvSchema = z.object({
  GATEWAY_PORT: envPort().default(3000),
  // The public edge: every interface by default, unlike the internal services, and /metrics and /__* off that port.
  ...shellEnv('0.0.0.0', DEFAULT_GATEWAY_METRICS_PORT, DEFAULT_GATEWAY_ADMIN_PORT),
  INTERNAL_TOKEN: envInternalToken(),
  ORDERS_URL: envHttpUrls('http://127.0.0.1:3001'),
  API_TOKENS: z
    .string({ error: 'is required: token=tenantUuid,token=tenantUuid (see the README for the demo tenants)' })
    .transform((spec, ctx) => {
      try {
        return ApiTokens.parse(spec);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  GATEWAY_KEY_MODE: envOneOf([KeyMode.Propagate, KeyMode.Regenerate]).default(KeyMode.Propagate),
  GATEWAY_DEADLINE_MS: envRequestBudgetMs(),
  GATEWAY_BODY_LIMIT_BYTES: envBodyLimitBytes(),
  ...upstreamEnv(),
});

/** Validated settings of the gateway. */
export interface GatewayConfig extends ListenConfig {
  /** `GATEWAY_PORT` (default 3000); `HOST` (default `0.0.0.0`: the public edge); `DRAIN_TIMEOUT_MS`. */
  readonly port: number;
  /** `INTERNAL_TOKEN` (required): the credential sent to orders. */
  readonly internalToken: string;
  /** `ORDERS_URL` (default `http://127.0.0.1:3001`): one URL, or several separated by commas (round robin). */
  readonly ordersUrls: readonly string[];
  /** `API_TOKENS` (required): bearer tokens and their tenants. */
  readonly apiTokens: ApiTokens;
  /** `GATEWAY_KEY_MODE` (default `propagate`); `regenerate` is a labelled demonstration of the unsafe design. */
  readonly keyMode: KeyMode;
  /** `GATEWAY_DEADLINE_MS` (default 10000): the budget of one client request across every hop and retry. */
  readonly deadlineMs: number;
  /** `GATEWAY_BODY_LIMIT_BYTES` (default 16384): larger bodies get 413. */
  readonly bodyLimitBytes: number;
  /** `UPSTREAM_RETRIES` (default 3) and `UPSTREAM_ATTEMPT_TIMEOUT_MS` (default 5000) of the calls to orders. */
  readonly upstream: UpstreamConfig;
}

/** DI token of the {@link GatewayConfig}. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/** Validates the environment into the {@link GatewayConfig} (never echoing the tokens back in its errors). */
export const loadGatewayConfig: ConfigLoader<GatewayConfig> = configLoader(
  EnvSchema,
  { service: 'gateway', portVariable: 'GATEWAY_PORT', secrets: new Set(['API_TOKENS', 'INTERNAL_TOKEN']) },
  (e) => ({
    internalToken: e.INTERNAL_TOKEN,
    ordersUrls: e.ORDERS_URL,
    apiTokens: e.API_TOKENS,
    keyMode: e.GATEWAY_KEY_MODE,
    deadlineMs: e.GATEWAY_DEADLINE_MS,
    bodyLimitBytes: e.GATEWAY_BODY_LIMIT_BYTES,
    upstream: upstreamConfigOf(e),
  }),
);
