import { z } from 'zod';

// Generic variable rules and the one parse of an app's environment: nothing here knows a service, a store or a token.

/** An integer variable in `[min, max]` (coerced from the string), with messages that name the range. */
export function envInt(min: number, max: number) {
  return z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
}

/** A TCP port variable (1-65535). */
export function envPort() {
  return envInt(1, 65_535);
}

/** A boolean variable: `true`/`false` (and zod's other stringbool spellings). */
export function envBool() {
  return z.stringbool({ error: "must be 'true' or 'false'" });
}

/**
 * A variable that is one of `values`, with a message that lists them (`must be 'raise', 'wait' or 'run'`).
 * @param values - at least two.
 */
export function envOneOf<const V extends readonly [string, ...string[]]>(values: V) {
  const quoted = values.map((value) => `'${value}'`);
  return z.enum(values, { error: `must be ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` });
}

/** An http(s) URL variable, without its trailing slashes (callers append paths). */
export function envHttpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/**
 * A comma-separated list of http(s) URLs (the replicas of one service, used round robin), at least one, each
 * without its trailing slashes; `defaultUrl` when unset.
 */
export function envHttpUrls(defaultUrl: string) {
  return z
    .string()
    .default(defaultUrl)
    .transform((list) => list.split(',').map((url) => url.trim()))
    .pipe(z.array(envHttpUrl()).min(1, 'needs at least one URL'));
}

/** An interface address to listen on (`HOST`): an IPv4 or IPv6 literal, e.g. `127.0.0.1`, `0.0.0.0`, `::`. */
export function envHost() {
  return z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address, e.g. 127.0.0.1 or 0.0.0.0' });
}

/** A `postgres://` or `postgresql://` URL variable (node-postgres' connection string). */
export function envPostgresUrl() {
  return z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' });
}

/** The environment is invalid; `message` names every offending variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/** Options of {@link parseEnv}. */
export interface ParseEnvOptions {
  /** Opens the error message: `<service>: invalid environment`. */
  readonly service: string;
  /** Variables whose value must never be echoed back in the message (tokens). @default none */
  readonly secrets?: ReadonlySet<string>;
}

/**
 * Validates `env` against `schema`, once, at start-up.
 * @throws {@link ConfigError} listing every invalid variable, one per line, with the value it got (secrets
 * excepted), the zod error as `cause`.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
  options: ParseEnvOptions,
): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const value = options.secrets?.has(name)
        ? ''
        : `=${JSON.stringify(redactCredentials(env[name]) ?? null)}`;
      return `  ${name}${value}: ${issue.message}`;
    });
    throw new ConfigError(`${options.service}: invalid environment\n${lines.join('\n')}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * `value` with the user information of any `scheme://user:password@` in it replaced by `***` (a user alone may be
 * a password, in old Redis URLs), so a `REDIS_URL` with credentials can be named in errors and logs.
 */
export function redactCredentials(value: string | undefined): string | undefined {
  return value?.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
