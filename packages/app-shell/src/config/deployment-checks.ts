import { DEMO_API_TOKEN_VALUES, DEMO_PASSWORDS, DEMO_SECRETS } from '@retry-safe/contracts';
import { serverLimitsProblem, type ServerLimits } from '../server-limits.js';

/** What {@link deploymentProblems} reads of an environment already parsed by an app's schema. */
export interface DeploymentView {
  /** The raw environment: which variables were set at all, and the raw `API_TOKENS`. */
  readonly env: Record<string, string | undefined>;
  /** The parsed variables: which secrets the app's schema has (`INTERNAL_TOKEN`, `REDIS_URL`, ...). */
  readonly parsed: Record<string, unknown>;
  readonly host: string;
  /** The app's port variable and value, and where the `/__*` routes listen when not on that port. */
  readonly port?: { readonly variable: string; readonly value: number };
  readonly adminListener?: { readonly host: string; readonly port: number } | undefined;
  /** `METRICS_PORT`, when `/metrics` has a listener of its own. */
  readonly metricsPort?: number | undefined;
  readonly faultsEnabled: boolean;
  readonly adminToken: string | undefined;
  readonly serverLimits: ServerLimits;
}

/** True for a loopback address (`127.0.0.0/8`, `::1`): only this host can reach a listener bound to it. */
export function isLoopback(host: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || /^::ffff:127\./i.test(host);
}

/** True when the environment is a production one: `NODE_ENV=production`, declared a demo or not. */
export function isProduction(env: Record<string, string | undefined>): boolean {
  return env['NODE_ENV'] === 'production';
}

/**
 * True when the published demo secrets are refused: in production ({@link isProduction}), unless
 * `RETRY_SAFE_DEMO=1` declares the deployment a demo (docker-compose.yml does, and every service says so loudly at
 * start-up). The flag lifts nothing else: the scenario routes stay refused in production.
 */
export function refusesDemoSecrets(env: Record<string, string | undefined>): boolean {
  return isProduction(env) && !isDemo(env);
}

/** `RETRY_SAFE_DEMO=1` (or `true`): the published demo credentials are accepted, and the logs say so. */
export function isDemo(env: Record<string, string | undefined>): boolean {
  return env['RETRY_SAFE_DEMO'] === '1' || env['RETRY_SAFE_DEMO'] === 'true';
}

/**
 * What an environment that each variable's own schema accepted may still not do, as `[variable, message]` pairs:
 * - `REQUEST_TIMEOUT_MS` under `HEADERS_TIMEOUT_MS` (Node refuses it);
 * - `ADMIN_PORT` equal to the app's port or to `METRICS_PORT` (the admin listener would not start);
 * - `FAULTS_ENABLED=true` with the `/__*` routes on an interface that is not loopback (`ADMIN_HOST` with an admin
 *   listener, else `HOST`) without `ADMIN_TOKEN` (the routes can switch idempotency off for every tenant);
 * - in production ({@link isProduction}), declared a demo or not: `FAULTS_ENABLED=true` at all;
 * - in production not declared a demo ({@link refusesDemoSecrets}): any secret the app reads that is unset or one
 *   of the published demo values ({@link DEMO_SECRETS}): `INTERNAL_TOKEN`, `API_TOKENS`, `ADMIN_TOKEN`, the
 *   passwords of `REDIS_URL` (or `REDIS_CLUSTER_NODES`) and `DATABASE_URL`.
 */
export function deploymentProblems(view: DeploymentView): Array<readonly [string, string]> {
  const problems: Array<readonly [string, string]> = [];
  const limits = serverLimitsProblem(view.serverLimits);
  if (limits !== undefined) problems.push(['REQUEST_TIMEOUT_MS', limits]);
  const admin = view.adminListener;
  if (admin !== undefined && view.port !== undefined && admin.port === view.port.value && admin.port !== 0) {
    problems.push(['ADMIN_PORT', `must differ from ${view.port.variable} (${view.port.value})`]);
  }
  if (admin !== undefined && admin.port !== 0 && admin.port === view.metricsPort) {
    problems.push(['ADMIN_PORT', `must differ from METRICS_PORT (${admin.port})`]);
  }
  const adminHost = admin === undefined ? 'HOST' : 'ADMIN_HOST';
  const adminAddress = admin?.host ?? view.host;
  if (view.faultsEnabled && !isLoopback(adminAddress) && view.adminToken === undefined) {
    problems.push([
      'ADMIN_TOKEN',
      `is required when FAULTS_ENABLED=true and ${adminHost} (${adminAddress}) is not loopback: every /__* route then demands it`,
    ]);
  }
  if (isProduction(view.env) && view.faultsEnabled) {
    problems.push([
      'FAULTS_ENABLED',
      'must be false with NODE_ENV=production (RETRY_SAFE_DEMO or not): the scenario routes inject faults and switch idempotency off',
    ]);
  }
  return refusesDemoSecrets(view.env) ? [...problems, ...secretProblems(view)] : problems;
}

function secretProblems({ env, parsed }: DeploymentView): Array<readonly [string, string]> {
  const problems: Array<readonly [string, string]> = [];
  const demo = 'is a published demo value: set a secret of your own (docs/operations.md, "Production")';
  if ('INTERNAL_TOKEN' in parsed && parsed['INTERNAL_TOKEN'] === DEMO_SECRETS.internalToken) {
    problems.push(['INTERNAL_TOKEN', demo]);
  }
  if (parsed['ADMIN_TOKEN'] === DEMO_SECRETS.adminToken) problems.push(['ADMIN_TOKEN', demo]);
  if ('API_TOKENS' in parsed) {
    const tokens = (env['API_TOKENS'] ?? '').split(',').map((entry) => entry.split('=', 1)[0]?.trim());
    const published = tokens.filter((token) => token !== undefined && DEMO_API_TOKEN_VALUES.includes(token));
    if (published.length > 0) problems.push(['API_TOKENS', `holds ${published.join(', ')}, which ${demo}`]);
  }
  const clusterNodes = parsed['REDIS_CLUSTER_NODES'];
  const onCluster = Array.isArray(clusterNodes) && clusterNodes.length > 0;
  if ('REDIS_URL' in parsed && !onCluster) problems.push(...passwordProblems('REDIS_URL', env['REDIS_URL']));
  if (onCluster) problems.push(...passwordProblems('REDIS_CLUSTER_NODES', env['REDIS_CLUSTER_NODES']));
  if ('DATABASE_URL' in parsed) problems.push(...passwordProblems('DATABASE_URL', env['DATABASE_URL']));
  return problems;
}

/** A store URL (or a comma-separated list of them) must be set, with a password that is not a demo one. */
function passwordProblems(name: string, value: string | undefined): Array<readonly [string, string]> {
  if (value === undefined || value.trim() === '') {
    return [
      [
        name,
        'is required with NODE_ENV=production (its default is the local demo store, without a password)',
      ],
    ];
  }
  for (const url of value.split(',')) {
    let password: string;
    try {
      const parsed = new URL(url.trim());
      password = decodeURIComponent(parsed.password);
    } catch {
      continue; // the variable's own schema has said what is wrong with it
    }
    if (password === '') return [[name, 'must carry a password with NODE_ENV=production']];
    if (DEMO_PASSWORDS.includes(password)) {
      return [
        [
          name,
          'carries a published demo password: set a secret of your own (docs/operations.md, "Production")',
        ],
      ];
    }
  }
  return [];
}
