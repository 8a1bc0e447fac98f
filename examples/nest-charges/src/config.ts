/** The HTTP platform the app runs on: the same modules, controllers and idempotency options on both. */
export const Platform = { Express: 'express', Fastify: 'fastify' } as const;
export type Platform = (typeof Platform)[keyof typeof Platform];

/** Where the idempotency records live. */
export type StoreConfig =
  | {
      readonly kind: 'redis';
      readonly url: string;
      /** Prefix of every record, to share a Redis with other data. */
      readonly keyPrefix: string;
    }
  | { readonly kind: 'postgres'; readonly url: string };

export interface AppConfig {
  readonly platform: Platform;
  readonly store: StoreConfig;
  readonly port: number;
}

/**
 * The app's settings, read once at start-up: `PLATFORM` (`express` or `fastify`), `STORE` (`redis` or `postgres`),
 * `REDIS_URL` and `IDEMPOTENCY_KEY_PREFIX`, or `DATABASE_URL`, and `PORT`. A wrong value stops the start with
 * the variable's name, not with a driver's error later.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const platform = oneOf('PLATFORM', env['PLATFORM'] ?? Platform.Express, Object.values(Platform));
  const kind = oneOf('STORE', env['STORE'] ?? 'redis', ['redis', 'postgres'] as const);
  const port = Number(env['PORT'] ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`PORT must be a port number, got "${env['PORT']}"`);
  }
  const store: StoreConfig =
    kind === 'redis'
      ? {
          kind,
          url: env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
          keyPrefix: env['IDEMPOTENCY_KEY_PREFIX'] ?? 'idem:',
        }
      : { kind, url: env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' };
  return { platform, store, port };
}

function oneOf<const T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}
