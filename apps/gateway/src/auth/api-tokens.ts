import { createHash } from 'node:crypto';

// Read by ApiTokenAuthenticator; re-exported for this module's callers and tests.
export { bearerTokenOf } from '@retry-safe/app-shell/http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// RFC 6750 b64token: what may follow `Bearer ` in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;

/** Bearer tokens and the tenants they stand for, as configured in `API_TOKENS`. */
export class ApiTokens {
  // Keyed by the SHA-256 of the token, so a lookup costs the same whatever prefix a guess shares with a real token.
  private readonly tenantsByDigest: ReadonlyMap<string, string>;

  private constructor(tenantsByDigest: ReadonlyMap<string, string>) {
    this.tenantsByDigest = tenantsByDigest;
  }

  /**
   * Parses `token=tenantUuid,token=tenantUuid`. Tokens are RFC 6750 b64tokens of at least 16 characters, tenants
   * lower-case UUIDs; a token may appear once, a tenant several times (key rotation).
   *
   * @throws Error with every problem found, for the start-up configuration check
   */
  static parse(spec: string): ApiTokens {
    const problems: string[] = [];
    const tenantsByDigest = new Map<string, string>();
    const entries = spec
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0);
    if (entries.length === 0) problems.push('no token is configured');
    entries.forEach((entry, index) => {
      const separator = entry.indexOf('=');
      // A token may end in '=' (b64token padding), so the tenant is what follows the last '='.
      const split = entry.lastIndexOf('=');
      if (separator <= 0 || split === entry.length - 1) {
        problems.push(`entry ${index + 1} is not token=tenantUuid`);
        return;
      }
      const token = entry.slice(0, split);
      const tenant = entry.slice(split + 1);
      if (!B64TOKEN.test(token) || token.length < MIN_TOKEN_LENGTH) {
        problems.push(
          `entry ${index + 1}: the token must be at least ${MIN_TOKEN_LENGTH} characters of [A-Za-z0-9-._~+/]`,
        );
        return;
      }
      if (!UUID.test(tenant)) {
        problems.push(`entry ${index + 1}: the tenant must be a lower-case UUID, got "${tenant}"`);
        return;
      }
      const digest = digestOf(token);
      if (tenantsByDigest.has(digest)) {
        problems.push(`entry ${index + 1}: the token is listed twice`);
        return;
      }
      tenantsByDigest.set(digest, tenant);
    });
    if (problems.length > 0) throw new Error(problems.join('; '));
    return new ApiTokens(tenantsByDigest);
  }

  /** The tenant of `token`, or `undefined` for an unknown token. */
  tenantOf(token: string): string | undefined {
    return this.tenantsByDigest.get(digestOf(token));
  }

  /** How many tokens are configured. */
  get size(): number {
    return this.tenantsByDigest.size;
  }
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
