import { DEMO_SECRETS } from '@retry-safe/contracts';

/** The two demo tenants and their bearer tokens (`DEMO_SECRETS` of `@retry-safe/contracts`: one list for all). */
export const DEMO_TENANTS = DEMO_SECRETS.tenants;

/** `API_TOKENS` for {@link DEMO_TENANTS}. */
export const DEMO_API_TOKENS = Object.values(DEMO_TENANTS)
  .map(({ token, tenantId }) => `${token}=${tenantId}`)
  .join(',');

/**
 * The demo's `INTERNAL_TOKEN` (`pnpm stack`, `pnpm demo`, the e2e stacks and docker-compose.yml use it unless told
 * otherwise): what orders and payments require of their callers. A published value: replace it for anything real.
 */
export const DEMO_INTERNAL_TOKEN = DEMO_SECRETS.internalToken;
