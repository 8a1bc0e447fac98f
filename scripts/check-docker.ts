/**
 * `pnpm check:docker`: CI has no Docker engine, so this reads every Dockerfile and compose file the way a build
 * would use them and fails on what would break it:
 * - a `COPY`/`ADD` source (build context = the repository root) that does not exist, or that .dockerignore excludes;
 * - a `pnpm --filter <package>` that names no workspace package, or `run <script>` / `<script>` missing from it;
 * - an install or build step before the manifests / sources of a workspace package it needs were copied;
 * - `npm install --global pnpm@<v>` other than package.json's `packageManager`;
 * - a `CMD ["node", "dist/<x>.js"]` whose `src/<x>.ts` does not exist;
 * - a final stage without a non-root `USER` or a `HEALTHCHECK` (or one that needs curl), or a single-stage build;
 * - a compose `dockerfile:` that does not exist.
 * Usage: node scripts/dist/check-docker.js [--root <repo>]. Exit code 1 lists every problem.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

interface WorkspacePackage {
  readonly name: string;
  /** Relative to the root, POSIX separators. */
  readonly dir: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Workspace packages among `dependencies` (what a production deploy needs). */
  readonly workspaceDeps: readonly string[];
}

/** Splits a Dockerfile into instructions: continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (buffer === '' && (line === '' || line.startsWith('#'))) return;
    if (buffer !== '' && line.startsWith('#')) return;
    if (buffer === '') start = index + 1;
    if (line.endsWith('\\')) {
      buffer += `${line.slice(0, -1)} `;
      return;
    }
    buffer += line;
    const match = /^(\S+)\s*(.*)$/s.exec(buffer);
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start });
    buffer = '';
  });
  return instructions;
}

/** Shell-like words: quotes removed, JSON exec form supported. */
function words(args: string): string[] {
  if (args.startsWith('[')) {
    try {
      return (JSON.parse(args) as unknown[]).map(String);
    } catch {
      // Not JSON: fall through to the shell form.
    }
  }
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** A .dockerignore as Docker applies it: the last matching pattern wins, `!` re-includes. */
function dockerignore(root: string): (path: string) => boolean {
  const file = join(root, '.dockerignore');
  if (!existsSync(file)) return () => false;
  const rules = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const pattern = posix.normalize((negate ? line.slice(1) : line).replace(/^\/+/, ''));
      const source = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\.\*\//g, '(?:.*/)?');
      // A pattern that matches a directory excludes everything under it.
      return { negate, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path) => {
    let excluded = false;
    for (const rule of rules) if (rule.regex.test(path)) excluded = !rule.negate;
    return excluded;
  };
}

function workspacePackages(root: string): WorkspacePackage[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [...yaml.matchAll(/^\s*-\s*['"]?([^'"\s#]+)['"]?\s*$/gm)].map((m) => m[1]!);
  const dirs = new Set<string>();
  for (const glob of globs) {
    if (glob.endsWith('/*')) {
      const parent = glob.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const child of readdirSync(join(root, parent))) dirs.add(`${parent}/${child}`);
    } else dirs.add(glob);
  }
  const packages: WorkspacePackage[] = [];
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    if (json.name === undefined) continue;
    packages.push({
      name: json.name,
      dir,
      scripts: json.scripts ?? {},
      workspaceDeps: Object.entries(json.dependencies ?? {})
        .filter(([, version]) => version.startsWith('workspace:'))
        .map(([name]) => name),
    });
  }
  return packages;
}

/** Checks one Dockerfile; returns its problems. */
function checkDockerfile(
  root: string,
  file: string,
  packages: readonly WorkspacePackage[],
  ignored: (path: string) => boolean,
  pnpmVersion: string | undefined,
): string[] {
  const problems: string[] = [];
  const rel = relative(root, file).split('\\').join('/');
  const at = (instruction: Instruction, message: string) =>
    problems.push(`${rel}:${instruction.line}: ${message}`);
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const closure = (name: string): WorkspacePackage[] => {
    const seen = new Map<string, WorkspacePackage>();
    const visit = (n: string): void => {
      const pkg = byName.get(n);
      if (pkg === undefined || seen.has(n)) return;
      seen.set(n, pkg);
      pkg.workspaceDeps.forEach(visit);
    };
    visit(name);
    return [...seen.values()];
  };
  const instructions = parseDockerfile(readFileSync(file, 'utf8'));
  const stages: Instruction[][] = [];
  // Paths of the context copied into the current stage so far (to judge install and build steps).
  let copied: string[] = [];
  // Copied, and not left out of the context by .dockerignore.
  const hasCopied = (path: string): boolean =>
    !ignored(path) &&
    copied.some((source) => source === '.' || path === source || path.startsWith(`${source}/`));

  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      stages.push([]);
      copied = [];
    }
    stages.at(-1)?.push(instruction);
    if (instruction.keyword === 'COPY' || instruction.keyword === 'ADD') {
      const parts = words(instruction.args);
      if (parts.some((part) => part.startsWith('--from='))) continue;
      const sources = parts.filter((part) => !part.startsWith('--')).slice(0, -1);
      if (sources.length === 0) at(instruction, `${instruction.keyword} without a source`);
      for (const source of sources) {
        const path = posix.normalize(source).replace(/\/+$/, '').replace(/^\.\//, '') || '.';
        if (!existsSync(join(root, path)))
          at(instruction, `${instruction.keyword} source ${source} does not exist`);
        else if (path !== '.' && ignored(path))
          at(instruction, `${instruction.keyword} source ${source} is excluded by .dockerignore`);
        copied.push(path);
      }
    }
    if (instruction.keyword === 'RUN') {
      const global = /npm (?:install|i) (?:--global|-g) pnpm@(\S+)/.exec(instruction.args);
      if (global && pnpmVersion !== undefined && global[1] !== pnpmVersion) {
        at(
          instruction,
          `installs pnpm@${global[1]} but package.json's packageManager is pnpm@${pnpmVersion}`,
        );
      }
      for (const command of instruction.args.split(/&&|\|\||;/)) {
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
        for (const filter of filters) {
          const name = filter
            .replace(/^\.\.\./, '')
            .replace(/\.\.\.$/, '')
            .replace(/\^/, '');
          const pkg = byName.get(name);
          if (pkg === undefined) {
            at(instruction, `pnpm --filter ${filter}: no workspace package is named ${name}`);
            continue;
          }
          const needed = filter.endsWith('...') ? closure(name) : [pkg];
          if (verb === 'install' || verb === 'i') {
            for (const dep of needed) {
              if (!hasCopied(`${dep.dir}/package.json`)) {
                at(
                  instruction,
                  `pnpm install --filter ${filter} before ${dep.dir}/package.json was in the image`,
                );
              }
            }
            for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']) {
              if (!hasCopied(file)) at(instruction, `pnpm install before ${file} was copied`);
            }
          } else if (verb === 'run' || (verb !== undefined && !PNPM_BUILTINS.has(verb))) {
            const script = verb === 'run' ? rest[rest.indexOf('run') + 1] : verb;
            if (script === undefined) at(instruction, 'pnpm run without a script name');
            else if (pkg.scripts[script] === undefined) at(instruction, `${name} has no script "${script}"`);
            for (const dep of needed) {
              if (!hasCopied(`${dep.dir}/src`))
                at(
                  instruction,
                  `pnpm ${script} for ${filter} before ${dep.dir}/src was in the image (copied, not excluded by .dockerignore)`,
                );
            }
          } else if (verb === 'deploy' && !hasCopied(`${pkg.dir}/src`)) {
            at(
              instruction,
              `pnpm deploy of ${name} before ${pkg.dir}/src was in the image (copied, not excluded by .dockerignore)`,
            );
          }
        }
      }
    }
  }

  if (stages.length < 2) problems.push(`${rel}: not a multi-stage build`);
  const final = stages.at(-1) ?? [];
  const user = final.filter((i) => i.keyword === 'USER').at(-1);
  if (user === undefined || /^(root|0)(:|$)/.test(user.args))
    problems.push(`${rel}: the final stage runs as root`);
  const health = final.find((i) => i.keyword === 'HEALTHCHECK');
  if (health === undefined) problems.push(`${rel}: the final stage has no HEALTHCHECK`);
  else if (/\bcurl\b|\bwget\b/.test(health.args))
    at(health, 'HEALTHCHECK needs curl/wget: use node and fetch');
  const cmd = final.find((i) => i.keyword === 'CMD');
  const entry = cmd === undefined ? undefined : words(cmd.args).find((word) => /^dist\/.+\.js$/.test(word));
  if (cmd === undefined) problems.push(`${rel}: no CMD`);
  else if (entry !== undefined) {
    const source = join(dirname(file), entry.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
    if (!existsSync(source)) at(cmd, `CMD runs ${entry}, but ${relative(root, source)} does not exist`);
  }
  return problems;
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

function findDockerfiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (depth < 3) walk(path, depth + 1);
      } else if (name === 'Dockerfile' || name.endsWith('.Dockerfile')) found.push(path);
    }
  };
  walk(root, 0);
  return found.sort();
}

function checkCompose(root: string): string[] {
  const problems: string[] = [];
  for (const name of readdirSync(root).filter((n) =>
    /^docker-compose.*\.ya?ml$|^compose.*\.ya?ml$/.test(n),
  )) {
    const text = readFileSync(join(root, name), 'utf8');
    for (const match of text.matchAll(/dockerfile:\s*['"]?([^'",}\s]+)/g)) {
      if (!existsSync(join(root, match[1]!))) problems.push(`${name}: dockerfile ${match[1]} does not exist`);
    }
  }
  return problems;
}

function repoRootFrom(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${start}`);
    dir = parent;
  }
  return dir;
}

function main(): number {
  const { values } = parseArgs({ options: { root: { type: 'string' } } });
  const root = values.root ?? repoRootFrom(dirname(fileURLToPath(import.meta.url)));
  const packages = workspacePackages(root);
  const manager = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager?: string }
  ).packageManager;
  const pnpmVersion = manager?.startsWith('pnpm@') ? manager.slice('pnpm@'.length) : undefined;
  const ignored = dockerignore(root);
  const dockerfiles = findDockerfiles(root);
  const problems = [
    ...(dockerfiles.length === 0 ? ['no Dockerfile found'] : []),
    ...dockerfiles.flatMap((file) => checkDockerfile(root, file, packages, ignored, pnpmVersion)),
    ...checkCompose(root),
  ];
  if (problems.length > 0) {
    console.error(`check-docker: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
    return 1;
  }
  console.log(
    `check-docker: ${dockerfiles.length} Dockerfiles and the compose files are consistent with the repository`,
  );
  return 0;
}

process.exitCode = main();
