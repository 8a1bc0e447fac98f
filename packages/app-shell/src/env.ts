import { z } from 'zod';

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

/** An http(s) URL variable, without its trailing slashes (callers append paths). */
export function envHttpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/** A `redis://` or `rediss://` URL variable. */
export function envRedisUrl() {
  return z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });
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
      const value = options.secrets?.has(name) ? '' : `=${JSON.stringify(env[name] ?? null)}`;
      return `  ${name}${value}: ${issue.message}`;
    });
    throw new ConfigError(`${options.service}: invalid environment\n${lines.join('\n')}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
