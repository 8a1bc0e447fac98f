/** What the checks know of the repository: its root, its workspace packages, and what .dockerignore leaves out. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

/** A package of pnpm-workspace.yaml. */
export interface WorkspacePackage {
  readonly name: string;
  /** Relative to the root, POSIX separators. */
  readonly dir: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Workspace packages among `dependencies` (what a production deploy needs). */
  readonly workspaceDeps: readonly string[];
}

/** The nearest directory at or above `start` holding `pnpm-workspace.yaml`. */
export function repoRootFrom(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${start}`);
    dir = parent;
  }
  return dir;
}

/** A .dockerignore as Docker applies it: the last matching pattern wins, `!` re-includes. */
export function dockerignore(root: string): (path: string) => boolean {
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

/** The packages pnpm-workspace.yaml lists (`dir/*` globs and plain directories). */
export function workspacePackages(root: string): WorkspacePackage[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const packagesBlock = /^packages:\s*\n((?:[ \t]+-.*\n?)+)/m.exec(yaml)?.[1] ?? '';
  const globs = [...packagesBlock.matchAll(/^\s*-\s*['"]?([^'"\s#]+)['"]?\s*$/gm)].map((m) => m[1]!);
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

/**
 * The apps an `ARG APP` Dockerfile builds: every `apps/<name>` with a package.json and a `src/main.ts`, except a
 * tool that runs only on the developer's machine (`"retrySafe": { "deploy": false }` in its package.json: the
 * console starts its own stack as processes and serves on loopback; it has no image and no compose service).
 */
export function deployableApps(root: string): string[] {
  const apps = join(root, 'apps');
  if (!existsSync(apps)) return [];
  return readdirSync(apps)
    .filter((name) => {
      const manifest = join(apps, name, 'package.json');
      if (!existsSync(manifest) || !existsSync(join(apps, name, 'src', 'main.ts'))) return false;
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as { retrySafe?: { deploy?: boolean } };
      return json.retrySafe?.deploy !== false;
    })
    .sort();
}
