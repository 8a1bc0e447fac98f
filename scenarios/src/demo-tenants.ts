/** The two demo tenants and their bearer tokens (docs/configuration.md and `pnpm stack` document the same values). */
export const DEMO_TENANTS = {
  a: { token: 'demo-token-tenant-a', tenantId: 'a0000000-0000-4000-8000-00000000000a' },
  b: { token: 'demo-token-tenant-b', tenantId: 'b0000000-0000-4000-8000-00000000000b' },
} as const;

/** `API_TOKENS` for {@link DEMO_TENANTS}. */
export const DEMO_API_TOKENS = Object.values(DEMO_TENANTS)
  .map(({ token, tenantId }) => `${token}=${tenantId}`)
  .join(',');

/**
 * The demo's `INTERNAL_TOKEN` (`pnpm stack`, `pnpm demo`, the e2e stacks and docker-compose.yml use it unless told
 * otherwise): what orders and payments require of their callers. A published value: replace it for anything real.
 */
export const DEMO_INTERNAL_TOKEN = 'demo-internal-token-replace-me-0123456789';
