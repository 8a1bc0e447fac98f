/**
 * The `INTERNAL_TOKEN` every test stack and in-process app uses (the gateway and orders send it, orders and
 * payments require it). A test value: real deployments set their own secret.
 */
export const TEST_INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef';

/** The header an internal caller sends with {@link TEST_INTERNAL_TOKEN}. */
export const TEST_INTERNAL_AUTHORIZATION = { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` } as const;

/**
 * The config an internal service (orders, payments) loads with only {@link TEST_INTERNAL_TOKEN} set, besides its
 * own variables: the shell's defaults (`HOST` 127.0.0.1, `DRAIN_TIMEOUT_MS`, `LOG_LEVEL`, `FAULTS_ENABLED`) and the inbound
 * limits (`REQUEST_BUDGET_MS`, `BODY_LIMIT_BYTES`). Its config spec spreads it into the whole expected config.
 */
export const INTERNAL_SERVICE_DEFAULTS = {
  host: '127.0.0.1',
  drainTimeoutMs: 10_000,
  logLevel: 'info',
  faultsEnabled: false,
  serverLimits: {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 15_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 1_000,
  },
  demo: false,
  requestBudgetMs: 10_000,
  bodyLimitBytes: 16_384,
  internalToken: TEST_INTERNAL_TOKEN,
} as const;
