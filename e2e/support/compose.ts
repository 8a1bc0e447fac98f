/**
 * The compose tier's handle on a real Docker engine: the project the tier builds and starts from the repository's
 * compose files (`scripts/compose-tier.sh` names it and builds its images), its containers, and what the suites do
 * to them (kill an app process inside its container, stop, start and restart services, read their state).
 * Everything goes through the Docker CLI: `docker compose` where the plugin exists, Debian's `docker-compose`
 * otherwise (COMPOSE_CLI overrides), so the suites check what a user's `docker compose up` runs.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, type StackUrls } from '@retry-safe/scenarios';
import { DEMO_SECRETS } from '@retry-safe/contracts';
import { waitFor } from '@retry-safe/testing';

const run = promisify(execFile);

/** The compose services of docker-compose.yml's default profile. */
export const COMPOSE_SERVICES = [
  'redis',
  'postgres',
  'provider-sim',
  'payments',
  'orders',
  'gateway',
  'invoice-worker',
] as const;
/** One of {@link COMPOSE_SERVICES}. */
export type ComposeService = (typeof COMPOSE_SERVICES)[number];
/** The services built from ops/Dockerfile. */
export const APP_SERVICES = ['provider-sim', 'payments', 'orders', 'gateway', 'invoice-worker'] as const;
/** One of {@link APP_SERVICES}. */
export type AppService = (typeof APP_SERVICES)[number];

/** The URLs `pnpm scenarios` defaults to: the scenarios override publishes every service there (loopback). */
export const PUBLISHED_URLS: Required<StackUrls> = {
  gateway: 'http://127.0.0.1:3000',
  orders: 'http://127.0.0.1:3001',
  payments: 'http://127.0.0.1:3002',
  provider: 'http://127.0.0.1:3003',
  worker: 'http://127.0.0.1:3004',
  // The scenarios override's: the gateway's admin listener, published on 127.0.0.1, and its demo ADMIN_TOKEN.
  admin: { gateway: 'http://127.0.0.1:9401' },
  adminToken: DEMO_SECRETS.adminToken,
};

/** What `docker inspect` says of one container (the fields the suites read). */
export interface ContainerState {
  readonly id: string;
  readonly status: string;
  readonly health: string | undefined;
  readonly restartCount: number;
  readonly exitCode: number;
  readonly startedAt: string;
  readonly readOnly: boolean;
  readonly user: string;
  /** Published ports: `3000/tcp -> 127.0.0.1:3000`, one per binding. */
  readonly published: string[];
}

interface Inspected {
  Id: string;
  RestartCount: number;
  State: { Status: string; ExitCode: number; StartedAt: string; Health?: { Status: string } };
  HostConfig: { ReadonlyRootfs: boolean };
  Config: { User: string };
  NetworkSettings: { Ports: Record<string, Array<{ HostIp: string; HostPort: string }> | null> | null };
}

/** A compose project of the repository's compose files, driven through the CLI. */
export interface ComposeProject {
  readonly name: string;
  /** Runs `<compose> -p <name> -f ... <args>` in the repository root; resolves with its stdout. */
  compose(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** The same command as one shell line (for REDIS_STOP_CMD and the like), run from the repository root. */
  commandLine(args: readonly string[]): Promise<string>;
  /** `up -d` (no build: the tier built the images) and every container healthy. */
  up(timeoutMs?: number): Promise<void>;
  /** `down -v --remove-orphans`: containers, network and volumes. */
  down(): Promise<void>;
  /** The container of `service` (its id), or throws. */
  containerId(service: ComposeService): Promise<string>;
  inspect(service: ComposeService): Promise<ContainerState>;
  /** Resolves once every container of {@link COMPOSE_SERVICES} is running and healthy. */
  healthy(timeoutMs?: number): Promise<void>;
  /** Runs `node -e <script>` inside the container of `service` (as the image's user); resolves with its stdout. */
  nodeExec(service: AppService, script: string): Promise<string>;
  logs(service: ComposeService): Promise<string>;
}

/** The compose CLI: COMPOSE_CLI (e.g. `docker-compose`), else the plugin, else Debian's docker-compose. */
async function composeCli(): Promise<string[]> {
  const chosen = process.env['COMPOSE_CLI'];
  if (chosen) return chosen.split(' ').filter(Boolean);
  try {
    await run('docker', ['compose', 'version']);
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

/**
 * The project `name` over `files` (relative to the repository root). The environment the tier's script sets
 * (COMPOSE_PROJECT_NAME, COMPOSE_CLI) is the default.
 */
export function composeProject(files: readonly string[], name = defaultProjectName()): ComposeProject {
  const root = repoRoot();
  const cli = composeCli();
  const argv = async (args: readonly string[]): Promise<string[]> => [
    ...(await cli),
    '-p',
    name,
    ...files.flatMap((file) => ['-f', join(root, file)]),
    ...args,
  ];
  const compose = async (args: readonly string[], timeoutMs = 120_000): Promise<string> => {
    const [command = 'docker-compose', ...rest] = await argv(args);
    const { stdout } = await run(command, rest, {
      cwd: root,
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  };
  const containerId = async (service: ComposeService): Promise<string> => {
    const id = (await compose(['ps', '-q', service])).trim();
    if (id === '') throw new Error(`${name}: no container for ${service}`);
    return id;
  };
  const inspect = async (service: ComposeService): Promise<ContainerState> => {
    const { stdout } = await run('docker', ['inspect', await containerId(service)]);
    const [c] = JSON.parse(stdout) as Inspected[];
    if (c === undefined) throw new Error(`${name}: docker inspect found no ${service}`);
    const published = Object.entries(c.NetworkSettings.Ports ?? {}).flatMap(([port, bindings]) =>
      (bindings ?? []).map((b) => `${port} -> ${b.HostIp}:${b.HostPort}`),
    );
    return {
      id: c.Id,
      status: c.State.Status,
      health: c.State.Health?.Status,
      restartCount: c.RestartCount,
      exitCode: c.State.ExitCode,
      startedAt: c.State.StartedAt,
      readOnly: c.HostConfig.ReadonlyRootfs,
      user: c.Config.User,
      published,
    };
  };
  const healthy = async (timeoutMs = 180_000): Promise<void> => {
    await waitFor(
      `${name}: every container healthy`,
      async () => {
        const states = await Promise.all(COMPOSE_SERVICES.map(async (s) => [s, await inspect(s)] as const));
        const unhealthy = states.filter(
          ([, state]) => state.status !== 'running' || state.health !== 'healthy',
        );
        if (unhealthy.length > 0) {
          throw new Error(unhealthy.map(([s, st]) => `${s}: ${st.status}/${st.health ?? 'none'}`).join(', '));
        }
      },
      { timeoutMs, intervalMs: 1_000 },
    );
  };
  return {
    name,
    compose,
    commandLine: async (args) => (await argv(args)).map((word) => `'${word}'`).join(' '),
    containerId,
    inspect,
    healthy,
    up: async (timeoutMs = 300_000) => {
      await compose(['up', '-d', '--no-build'], timeoutMs);
      await healthy(timeoutMs);
    },
    down: async () => {
      await compose(['down', '-v', '--remove-orphans', '--timeout', '40'], 180_000);
    },
    nodeExec: async (service, script) => {
      const id = await containerId(service);
      const { stdout } = await run('docker', ['exec', id, 'node', '-e', script], { timeout: 30_000 }).catch(
        (error: Error & { code?: unknown; stdout?: string; stderr?: string }) => {
          // execFile's message names the command (the whole script); what the exec said is what tells why.
          throw new Error(
            `docker exec node in ${service} failed (exit ${String(error.code)}): ` +
              `stdout ${JSON.stringify(error.stdout ?? '')}, stderr ${JSON.stringify(error.stderr ?? '')}`,
            { cause: error },
          );
        },
      );
      return stdout;
    },
    logs: async (service) => compose(['logs', '--no-color', service]),
  };
}

function defaultProjectName(): string {
  return process.env['COMPOSE_PROJECT_NAME'] ?? 'retry-safe-compose-tier';
}

/**
 * A script for {@link ComposeProject.nodeExec}: the app process of the container (the `node` running
 * `dist/main.js`, a child of the init that `init: true` puts at PID 1, whose command line names it too), as JSON `{pid, uid}`; with `signal`, sent
 * that signal. /proc, not `ps`: the slim images have no procps.
 */
export function appProcessScript(signal?: NodeJS.Signals): string {
  return `
const fs = require('fs');
const found = [];
for (const p of fs.readdirSync('/proc')) {
  if (!/^[0-9]+$/.test(p) || Number(p) === 1 || Number(p) === process.pid) continue;
  let cmd = '';
  try { cmd = fs.readFileSync('/proc/' + p + '/cmdline', 'utf8'); } catch { continue; }
  if (!cmd.includes('dist/main.js')) continue;
  const uid = /^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/' + p + '/status', 'utf8'))[1];
  found.push({ pid: Number(p), uid: Number(uid) });
}
if (found.length !== 1) { console.error('app processes: ' + JSON.stringify(found)); process.exit(2); }
${signal === undefined ? '' : `process.kill(found[0].pid, '${signal}');`}
console.log(JSON.stringify(found[0]));
`;
}
