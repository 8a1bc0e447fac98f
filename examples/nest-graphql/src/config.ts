/** DI token of the {@link ApiConfig}. */
export const API_CONFIG = Symbol('API_CONFIG');

export interface ApiConfig {
  readonly port: number;
  readonly redisUrl: string;
  /** Prefix of every idempotency record, to share a Redis with other data. */
  readonly keyPrefix: string;
}

/**
 * The API's settings, read once at start-up: `PORT`, `REDIS_URL` and `IDEMPOTENCY_KEY_PREFIX`. A port that is no
 * port stops the start with the variable's name.
 */
export function loadConfig(env: NodeJS.ProcessEnv): ApiConfig {
  const port = Number(env['PORT'] ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`PORT must be a port number, got "${env['PORT']}"`);
  }
  return {
    port,
    redisUrl: env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    keyPrefix: env['IDEMPOTENCY_KEY_PREFIX'] ?? 'graphql:idem:',
  };
}
