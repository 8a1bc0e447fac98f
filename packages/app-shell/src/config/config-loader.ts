import type { z } from 'zod';
import { deploymentProblems } from './deployment-checks.js';
import { ConfigError, parseEnv, type ParseEnvOptions } from './env-validation.js';
import { shellConfigOf, type ListenConfig } from './shell-env.js';

/** Options of {@link configLoader}. @typeParam P - the name of the app's port variable. */
export interface ConfigLoaderOptions<P extends string> extends ParseEnvOptions {
  /** The app's port variable (`ORDERS_PORT`), read into {@link ListenConfig.port}. */
  readonly portVariable: P;
}

/** Reads and validates an app's environment into its config `C`. */
export type ConfigLoader<C> = (env: Record<string, string | undefined>) => C;

/**
 * An app's config loader: validates the environment against `schema` (which spreads {@link shellEnv} and has the
 * port variable), once, by `main.ts` (tests pass their own record); the config is the port, the
 * {@link ShellConfig}, and what `read` makes of the app's own variables.
 * Then the rules between variables ({@link deploymentProblems}): with `NODE_ENV=production` no `FAULTS_ENABLED`,
 * and (unless `RETRY_SAFE_DEMO=1`) no published demo secret, no missing one; no `/__*` route off loopback without
 * `ADMIN_TOKEN`; `ADMIN_PORT` not the app's port.
 * @returns a loader that throws {@link ConfigError} listing every invalid variable with the value it got (the
 * secrets' values excepted).
 */
export function configLoader<A extends object, P extends string, S extends z.ZodType<ShellEnvOutput<P>>>(
  schema: S,
  options: ConfigLoaderOptions<P>,
  read: (e: z.output<S>) => A,
): ConfigLoader<ListenConfig & A> {
  const secrets = new Set([...(options.secrets ?? []), 'ADMIN_TOKEN']);
  return (env) => {
    const e = parseEnv(schema, env, { ...options, secrets });
    const shell = shellConfigOf(e);
    const problems = deploymentProblems({
      env,
      parsed: e as Record<string, unknown>,
      host: shell.host,
      port: { variable: options.portVariable, value: e[options.portVariable] },
      adminListener: shell.adminListener,
      metricsPort: shell.metricsListener?.port,
      faultsEnabled: shell.faultsEnabled,
      adminToken: shell.adminToken,
      serverLimits: shell.serverLimits,
    });
    if (problems.length > 0) {
      const lines = problems.map(([name, message]) => `  ${name}: ${message}`);
      throw new ConfigError(`${options.service}: invalid environment\n${lines.join('\n')}`);
    }
    return { port: e[options.portVariable], ...shell, ...read(e) };
  };
}

/** What a schema with {@link shellEnv}'s variables and the port variable `P` gives. */
type ShellEnvOutput<P extends string> = Parameters<typeof shellConfigOf>[0] & { readonly [K in P]: number };
