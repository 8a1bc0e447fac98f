/**
 * The demo's published credentials, in one place: `pnpm stack`, `pnpm demo`, the e2e stacks and docker-compose.yml
 * use them, the README and docs/configuration.md print them, and every service refuses them with
 * `NODE_ENV=production` (unless `RETRY_SAFE_DEMO=1` declares the deployment a demo). Anyone can read them: they
 * protect nothing.
 */
export const DEMO_SECRETS = {
  /** `INTERNAL_TOKEN`: what the gateway and orders send to orders and payments. */
  internalToken: 'demo-internal-token-replace-me-0123456789',
  /** The two demo tenants of `API_TOKENS` and their bearer tokens. */
  tenants: {
    a: { token: 'demo-token-tenant-a', tenantId: 'a0000000-0000-4000-8000-00000000000a' },
    b: { token: 'demo-token-tenant-b', tenantId: 'b0000000-0000-4000-8000-00000000000b' },
  },
  /**
   * `ADMIN_TOKEN` of docker-compose.scenarios.yml: its services listen on 0.0.0.0 inside their containers with
   * `FAULTS_ENABLED=true`, so every `/__*` route demands a token, which the scenario runner sends.
   */
  adminToken: 'demo-admin-token-replace-me-0123456789',
  /** The password in docker-compose.yml's `REDIS_URL` (`REDIS_PASSWORD`'s default). */
  redisPassword: 'demo-redis-password-replace-me',
  /** The password in docker-compose.yml's `DATABASE_URL` (`POSTGRES_PASSWORD`'s default). */
  postgresPassword: 'retry-safe-demo',
} as const;

/** The bearer tokens of {@link DEMO_SECRETS}' tenants: none may appear in a production `API_TOKENS`. */
export const DEMO_API_TOKEN_VALUES: readonly string[] = Object.values(DEMO_SECRETS.tenants).map(
  ({ token }) => token,
);

/** The passwords of {@link DEMO_SECRETS}: none may be the password of a production `REDIS_URL` or `DATABASE_URL`. */
export const DEMO_PASSWORDS: readonly string[] = [DEMO_SECRETS.redisPassword, DEMO_SECRETS.postgresPassword];
