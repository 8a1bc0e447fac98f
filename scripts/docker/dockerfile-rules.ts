/**
 * The rules one Dockerfile must keep, for one set of build arguments (an `ARG APP` file is checked once per app):
 * - a `COPY`/`ADD` source or a `RUN --mount=type=bind` source (build context = the repository root) that does not
 *   exist, or that .dockerignore excludes (a bind mount's sources count as copied for its own RUN only);
 * - a `pnpm --filter <package>` that names no workspace package, or `run <script>` / `<script>` missing from it;
 * - an install, build or deploy step before the manifests / sources of a workspace package it needs were copied
 *   (a stage `FROM` an earlier stage starts with what that stage copied);
 * - `pnpm fetch|install|deploy` without a BuildKit cache mount on the pnpm store it uses;
 * - `npm install --global pnpm@<v>` other than package.json's `packageManager`;
 * - a `CMD ["node", "dist/<x>.js"]` whose `src/<x>.ts` does not exist in the deployed package;
 * - a final stage without a non-root `USER` or a `HEALTHCHECK` (or one that needs curl), or a single-stage build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import {
  cacheTargets,
  contextBindSources,
  parseDockerfile,
  runParts,
  substitute,
  words,
  type Instruction,
} from './dockerfile.js';
import type { WorkspacePackage } from './repository.js';

/** What the rules need to know of the repository. */
export interface RepositoryFacts {
  readonly root: string;
  readonly packages: readonly WorkspacePackage[];
  readonly ignored: (path: string) => boolean;
  readonly pnpmVersion: string | undefined;
}

/** pnpm commands that are not package scripts. */
const PNPM_BUILTINS = new Set([
  'install',
  'i',
  'add',
  'deploy',
  'exec',
  'dlx',
  'fetch',
  'prune',
  'rebuild',
  'store',
]);
/** pnpm commands that write the store (and so want it in a cache mount). */
const STORE_VERBS = new Set(['install', 'i', 'add', 'fetch', 'deploy']);

/** The state of the walk through the instructions. */
interface Walk {
  readonly facts: RepositoryFacts;
  readonly at: (instruction: Instruction, message: string) => void;
  /** Context paths copied into the current stage so far (to judge install and build steps). */
  copied: string[];
  /** What each named stage had copied, for the stages built `FROM` it. */
  readonly stageCopies: Map<string, string[]>;
  /** The directory of the package `pnpm deploy` wrote (where CMD's `dist/` comes from). */
  deployedDir: string | undefined;
}

/** Checks one Dockerfile with `args` (e.g. `{ APP: 'gateway' }`); returns its problems, each with file and line. */
export function checkDockerfile(
  facts: RepositoryFacts,
  file: string,
  args: Readonly<Record<string, string>> = {},
): string[] {
  const problems: string[] = [];
  const label = Object.entries(args)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const rel = relative(facts.root, file).split('\\').join('/') + (label === '' ? '' : ` (${label})`);
  const walk: Walk = {
    facts,
    at: (instruction, message) => problems.push(`${rel}:${instruction.line}: ${message}`),
    copied: [],
    stageCopies: new Map(),
    deployedDir: undefined,
  };
  const stages: Instruction[][] = [];
  for (const raw of parseDockerfile(readFileSync(file, 'utf8'))) {
    const instruction = { ...raw, args: raw.keyword === 'FROM' ? raw.args : substitute(raw.args, args) };
    if (instruction.keyword === 'FROM') {
      stages.push([]);
      startStage(walk, instruction);
    }
    stages.at(-1)?.push(instruction);
    if (instruction.keyword === 'COPY' || instruction.keyword === 'ADD') checkCopy(walk, instruction);
    if (instruction.keyword === 'RUN') checkRun(walk, instruction);
  }
  if (stages.length < 2) problems.push(`${rel}: not a multi-stage build`);
  problems.push(...checkFinalStage(walk, rel, stages.at(-1) ?? [], dirname(file)));
  return problems;
}

/** `FROM <stage> AS <name>` starts with what `<stage>` copied; an image starts empty. */
function startStage(walk: Walk, instruction: Instruction): void {
  const parts = words(instruction.args).filter((part) => !part.startsWith('--'));
  const base = parts[0]?.toLowerCase() ?? '';
  walk.copied = [...(walk.stageCopies.get(base) ?? [])];
  const asIndex = parts.findIndex((part) => part.toLowerCase() === 'as');
  const name = asIndex === -1 ? undefined : parts[asIndex + 1]?.toLowerCase();
  // The array is shared with the map on purpose: what this stage copies later is what its children inherit.
  if (name !== undefined) walk.stageCopies.set(name, walk.copied);
}

function checkCopy(walk: Walk, instruction: Instruction): void {
  const parts = words(instruction.args);
  if (parts.some((part) => part.startsWith('--from='))) return;
  const sources = parts.filter((part) => !part.startsWith('--')).slice(0, -1);
  if (sources.length === 0) walk.at(instruction, `${instruction.keyword} without a source`);
  walk.copied.push(...sources.map((source) => contextSource(walk, instruction, instruction.keyword, source)));
}

/** Checks one build-context source (of a COPY or a bind mount) and returns it as a context path. */
function contextSource(walk: Walk, instruction: Instruction, what: string, source: string): string {
  const path = posix.normalize(source).replace(/\/+$/, '').replace(/^\.\//, '') || '.';
  if (path.includes('$')) walk.at(instruction, `${what} source ${source} uses an unset build argument`);
  else if (!existsSync(join(walk.facts.root, path)))
    walk.at(instruction, `${what} source ${source} does not exist`);
  else if (path !== '.' && walk.facts.ignored(path))
    walk.at(instruction, `${what} source ${source} is excluded by .dockerignore`);
  return path;
}

/** Copied, and not left out of the context by .dockerignore. */
function hasCopied(walk: Walk, path: string): boolean {
  return (
    !walk.facts.ignored(path) &&
    walk.copied.some((source) => source === '.' || path === source || path.startsWith(`${source}/`))
  );
}

function checkRun(walk: Walk, instruction: Instruction): void {
  const { mounts, command: shell } = runParts(instruction.args);
  const bound = contextBindSources(mounts).map((source) =>
    contextSource(walk, instruction, 'bind mount', source),
  );
  // What a bind mount brings is there for this RUN only: the next instruction does not see it.
  const copied = walk.copied;
  walk.copied = [...copied, ...bound];
  try {
    checkRunCommands(walk, instruction, mounts, shell);
  } finally {
    walk.copied = copied;
  }
}

function checkRunCommands(
  walk: Walk,
  instruction: Instruction,
  mounts: readonly string[],
  shell: string,
): void {
  const pnpmVersion = walk.facts.pnpmVersion;
  const global = /npm (?:install|i) (?:--global|-g) pnpm@(\S+)/.exec(shell);
  if (global && pnpmVersion !== undefined && global[1] !== pnpmVersion) {
    walk.at(
      instruction,
      `installs pnpm@${global[1]} but package.json's packageManager is pnpm@${pnpmVersion}`,
    );
  }
  for (const command of shell.split(/&&|\|\||;/)) {
    const tokens = words(command.trim());
    if (tokens[0] !== 'pnpm') continue;
    const filters: string[] = [];
    const rest: string[] = [];
    for (let i = 1; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token === '--filter' || token === '-F' || token === '--filter-prod')
        filters.push(tokens[++i] ?? '');
      else if (token.startsWith('--filter=')) filters.push(token.slice('--filter='.length));
      else rest.push(token);
    }
    const verb = rest.find((token) => !token.startsWith('-'));
    if (verb !== undefined && STORE_VERBS.has(verb)) checkStoreMount(walk, instruction, verb, rest, mounts);
    if (verb === 'fetch' && !hasCopied(walk, 'pnpm-lock.yaml'))
      walk.at(instruction, 'pnpm fetch before pnpm-lock.yaml was copied');
    for (const filter of filters) checkFilter(walk, instruction, filter, verb, rest);
  }
}

/** The store a pnpm command writes must be a cache mount, so images share downloads and do not carry them. */
function checkStoreMount(
  walk: Walk,
  instruction: Instruction,
  verb: string,
  rest: readonly string[],
  mounts: readonly string[],
): void {
  const targets = cacheTargets(mounts);
  const storeIndex = rest.indexOf('--store-dir');
  const store = storeIndex === -1 ? undefined : rest[storeIndex + 1];
  if (targets.length === 0) walk.at(instruction, `pnpm ${verb} without a cache mount (--mount=type=cache)`);
  else if (store !== undefined && !targets.includes(store))
    walk.at(
      instruction,
      `pnpm ${verb} --store-dir ${store} is not one of the cache mounts (${targets.join(', ')})`,
    );
}

function checkFilter(
  walk: Walk,
  instruction: Instruction,
  filter: string,
  verb: string | undefined,
  rest: readonly string[],
): void {
  const name = filter
    .replace(/^\.\.\./, '')
    .replace(/\.\.\.$/, '')
    .replace(/\^/, '');
  const byName = new Map(walk.facts.packages.map((pkg) => [pkg.name, pkg]));
  const pkg = byName.get(name);
  if (pkg === undefined) {
    walk.at(instruction, `pnpm --filter ${filter}: no workspace package is named ${name}`);
    return;
  }
  const needed = filter.endsWith('...') ? closure(byName, name) : [pkg];
  if (verb === 'install' || verb === 'i') {
    for (const dep of needed) {
      if (!hasCopied(walk, `${dep.dir}/package.json`))
        walk.at(
          instruction,
          `pnpm install --filter ${filter} before ${dep.dir}/package.json was in the image`,
        );
    }
    for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']) {
      if (!hasCopied(walk, file)) walk.at(instruction, `pnpm install before ${file} was copied`);
    }
  } else if (verb === 'run' || (verb !== undefined && !PNPM_BUILTINS.has(verb))) {
    const script = verb === 'run' ? rest[rest.indexOf('run') + 1] : verb;
    if (script === undefined) walk.at(instruction, 'pnpm run without a script name');
    else if (pkg.scripts[script] === undefined) walk.at(instruction, `${name} has no script "${script}"`);
    for (const dep of needed) {
      if (!hasCopied(walk, `${dep.dir}/src`))
        walk.at(
          instruction,
          `pnpm ${script} for ${filter} before ${dep.dir}/src was in the image (copied, not excluded)`,
        );
    }
  } else if (verb === 'deploy') {
    if (!hasCopied(walk, `${pkg.dir}/src`))
      walk.at(
        instruction,
        `pnpm deploy of ${name} before ${pkg.dir}/src was in the image (copied, not excluded)`,
      );
    walk.deployedDir = pkg.dir;
  }
}

/** `name` and the workspace packages it depends on in production, transitively. */
function closure(byName: ReadonlyMap<string, WorkspacePackage>, name: string): WorkspacePackage[] {
  const seen = new Map<string, WorkspacePackage>();
  const visit = (n: string): void => {
    const pkg = byName.get(n);
    if (pkg === undefined || seen.has(n)) return;
    seen.set(n, pkg);
    pkg.workspaceDeps.forEach(visit);
  };
  visit(name);
  return [...seen.values()];
}

function checkFinalStage(walk: Walk, rel: string, final: readonly Instruction[], fileDir: string): string[] {
  const problems: string[] = [];
  const user = final.filter((i) => i.keyword === 'USER').at(-1);
  if (user === undefined || /^(root|0)(:|$)/.test(user.args))
    problems.push(`${rel}: the final stage runs as root`);
  const health = final.find((i) => i.keyword === 'HEALTHCHECK');
  if (health === undefined) problems.push(`${rel}: the final stage has no HEALTHCHECK`);
  else if (/\bcurl\b|\bwget\b/.test(health.args))
    walk.at(health, 'HEALTHCHECK needs curl/wget: use node and fetch');
  const cmd = final.find((i) => i.keyword === 'CMD');
  const entry = cmd === undefined ? undefined : words(cmd.args).find((word) => /^dist\/.+\.js$/.test(word));
  if (cmd === undefined) problems.push(`${rel}: no CMD`);
  else if (entry !== undefined) {
    const packageDir = walk.deployedDir === undefined ? fileDir : join(walk.facts.root, walk.deployedDir);
    const source = join(packageDir, entry.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
    if (!existsSync(source))
      walk.at(cmd, `CMD runs ${entry}, but ${relative(walk.facts.root, source)} does not exist`);
  }
  return problems;
}
