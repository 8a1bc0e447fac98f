/**
 * The workspace's import boundaries as an ESLint rule (`retry-safe/boundaries`, on in eslint.config.js), so that
 * `pnpm lint` and every editor refuse an import that crosses one. Each import, re-export and dynamic import is
 * resolved to the workspace it lands in: a relative path by where it points, `@retry-safe/<name>[/<subpath>]` by
 * the package's name, anything else is an external package. The rules (README, "Boundaries"):
 * - nothing imports an app: apps are processes that talk over HTTP and the queue, and packages sit below them;
 * - packages import neither the scenarios, the e2e suites nor the benchmarks;
 * - the idempotency core (`packages/idempotency/src` outside `redis/`, `nest/`, `postgres/`) imports no driver and
 *   no framework, neither directly nor through those folders: only its subpath entries know them, each its own
 *   (`./redis` ioredis, `./postgres` pg and Kysely, `./nest` NestJS), and they build on the core, not on each other;
 * - fault injection knows nothing of idempotency, and the reverse;
 * - provider-sim stands for an external system: of the workspace it uses only the generic infrastructure, never
 *   its callers' contracts.
 * - the console watches the services from outside: its server uses the shell, the scenarios and the test helpers
 *   (what the services publish, read over HTTP), never a service's own packages; its page (`apps/console/web`)
 *   runs in a browser: Preact and the API's types in `src/runs/console-api.ts`, nothing of Node or the workspace.
 * - an app's demonstrations (`apps/<app>/src/demonstrations/`, the scenarios' wrong designs) are bound only by its
 *   Nest modules: outside that folder, only a `*.module.ts` file may import it; a production class depends on the
 *   token the module binds, never on a demonstration.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Drivers and frameworks the idempotency core may not import (package names, `*` as a prefix). */
const CORE_FORBIDDEN = ['ioredis', 'pg', 'pg-*', 'kysely', '@nestjs/*', 'express', 'bullmq'];
/** The folders of packages/idempotency/src that may (they are the `./redis`, `./nest`, `./postgres` entries). */
const CORE_ADAPTERS = /^packages\/idempotency\/src\/(redis|nest|postgres)\//;
/** What each adapter folder may import of CORE_FORBIDDEN: its own driver or framework, no other. */
const ADAPTER_MAY_USE = { redis: ['ioredis'], postgres: ['pg', 'pg-*', 'kysely'], nest: ['@nestjs/*'] };
/**
 * What provider-sim may import of the workspace: generic infrastructure with no business code of its callers. A
 * name allows every entry of that package; `@retry-safe/contracts/http` (header names, the problem+json wire form)
 * allows that entry alone: the rest of `contracts` is its callers' business (jobs, commands).
 */
const PROVIDER_SIM_MAY_USE = [
  '@retry-safe/app-shell',
  '@retry-safe/fault-injection',
  '@retry-safe/testing',
  '@retry-safe/idempotency',
  '@retry-safe/contracts/http',
];

/** What the console's server may import of the workspace: what reads the services from outside. */
const CONSOLE_MAY_USE = ['@retry-safe/app-shell', '@retry-safe/scenarios', '@retry-safe/testing'];
/** What the console's page may import besides its own files: the browser's libraries. */
const CONSOLE_PAGE_MAY_USE = ['preact', 'preact/*', 'vite'];
/** The one file of the console's server the page may import: the API's types. */
const CONSOLE_PAGE_SHARED = 'apps/console/src/runs/console-api.ts';

/** Workspace directories (relative, POSIX) by package name, from pnpm-workspace.yaml. */
function readWorkspaces() {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\s*\n((?:[ \t]+-.*\n?)+)/m.exec(yaml)?.[1] ?? '';
  const globs = [...block.matchAll(/^\s*-\s*['"]?([^'"\s#]+)['"]?\s*$/gm)].map((m) => m[1]);
  const dirs = globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? existsSync(join(ROOT, glob.slice(0, -2)))
        ? readdirSync(join(ROOT, glob.slice(0, -2))).map((child) => `${glob.slice(0, -2)}/${child}`)
        : []
      : [glob],
  );
  const byName = new Map();
  for (const dir of dirs) {
    const manifest = join(ROOT, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (typeof name === 'string') byName.set(name, dir);
  }
  return byName;
}

const WORKSPACES = readWorkspaces();
const NAME_OF = new Map([...WORKSPACES].map(([name, dir]) => [dir, name]));
const DIRS = [...WORKSPACES.values()].sort((a, b) => b.length - a.length);

const posix = (path) => path.split(sep).join('/');
/** The workspace directory a repository-relative path is in, or `undefined`. */
const workspaceOf = (rel) => DIRS.find((dir) => rel === dir || rel.startsWith(`${dir}/`));
const packageName = (source) =>
  source
    .split('/')
    .slice(0, source.startsWith('@') ? 2 : 1)
    .join('/');
const matches = (name, patterns) =>
  patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));

/** Where `source`, imported from the file at `fromRel`, lands. */
function resolveTarget(fromRel, source) {
  if (source.startsWith('.')) {
    const rel = posix(relative(ROOT, resolve(ROOT, dirname(fromRel), source)));
    const dir = workspaceOf(rel);
    return { rel, dir, name: dir === undefined ? undefined : NAME_OF.get(dir) };
  }
  const name = packageName(source);
  const dir = WORKSPACES.get(name);
  return dir === undefined
    ? { external: name, name, specifier: source }
    : { rel: dir, dir, name, specifier: source };
}

/** The boundary `source` crosses when imported from `fromRel`, as a message, or `undefined`. */
export function crossedBoundary(fromRel, source) {
  const from = workspaceOf(fromRel);
  if (from === undefined) return undefined;
  const target = resolveTarget(fromRel, source);
  if (target.dir !== undefined && target.dir !== from) {
    if (target.dir.startsWith('apps/'))
      return `nothing imports an app (${target.dir}): apps talk over HTTP and the queue; share code through a package`;
    if (from.startsWith('packages/') && ['scenarios', 'e2e', 'bench'].includes(target.dir))
      return `packages sit below ${target.dir}: a package never imports it`;
    const pair = [from, target.dir].sort().join(' ');
    if (pair === 'packages/fault-injection packages/idempotency')
      return 'fault injection and idempotency know nothing of each other';
  }
  // By name too: a `@retry-safe/*` package that is not (yet) in the workspace is still a caller's code.
  const own = target.dir === from;
  if (
    from === 'apps/provider-sim' &&
    !own &&
    target.name?.startsWith('@retry-safe/') &&
    !PROVIDER_SIM_MAY_USE.includes(target.name) &&
    !PROVIDER_SIM_MAY_USE.includes(target.specifier ?? '')
  )
    return `provider-sim stands for an external system: of the workspace it may use ${PROVIDER_SIM_MAY_USE.join(', ')}, not ${target.specifier ?? target.name}`;
  if (fromRel.startsWith('packages/idempotency/src/')) return idempotencyBoundary(fromRel, target);
  if (from === 'apps/console') return consoleBoundary(fromRel, source, target);
  if (from.startsWith('apps/')) return demonstrationBoundary(fromRel, from, target);
  return undefined;
}

/** An app's demonstrations are bound by its modules alone: no other file of its `src` imports them. */
function demonstrationBoundary(fromRel, from, target) {
  const demonstrations = `${from}/src/demonstrations/`;
  if (target.rel === undefined || !target.rel.startsWith(demonstrations)) return undefined;
  if (!fromRel.startsWith(`${from}/src/`) || fromRel.startsWith(demonstrations)) return undefined;
  if (fromRel.endsWith('.module.ts')) return undefined;
  return `${demonstrations} is bound by the app's modules only (*.module.ts): a production class injects the token a module binds, never a demonstration`;
}

/** The console's boundary: its server reads the services from outside, its page runs in a browser. */
function consoleBoundary(fromRel, source, target) {
  if (fromRel.startsWith('apps/console/web/')) {
    if (target.external !== undefined)
      return matches(source, CONSOLE_PAGE_MAY_USE) || matches(target.external, CONSOLE_PAGE_MAY_USE)
        ? undefined
        : `the console's page runs in a browser: it may import ${CONSOLE_PAGE_MAY_USE.join(', ')}, not ${source}`;
    if (target.rel?.startsWith('apps/console/web/')) return undefined;
    if (target.rel?.replace(/\.js$/, '.ts') === CONSOLE_PAGE_SHARED) return undefined;
    return `the console's page imports only its own files and ${CONSOLE_PAGE_SHARED} (the API's types)`;
  }
  if (
    target.name?.startsWith('@retry-safe/') &&
    target.dir !== 'apps/console' &&
    !CONSOLE_MAY_USE.includes(target.name)
  )
    return `the console reads what the services publish: of the workspace it may use ${CONSOLE_MAY_USE.join(', ')}, not ${target.specifier ?? target.name}`;
  return undefined;
}

/** The idempotency package's own boundary: the core knows no driver, each adapter only its own. */
function idempotencyBoundary(fromRel, target) {
  const adapter = CORE_ADAPTERS.exec(fromRel)?.[1];
  const into = target.rel === undefined ? undefined : CORE_ADAPTERS.exec(`${target.rel}/`)?.[1];
  if (adapter === undefined) {
    if (target.external !== undefined && matches(target.external, CORE_FORBIDDEN))
      return `the idempotency core imports no driver or framework (${target.external}); only src/redis, src/nest and src/postgres may`;
    if (into !== undefined)
      return 'the idempotency core does not import its adapters (src/redis, src/nest, src/postgres): they are subpath entries of their own';
    return undefined;
  }
  if (
    target.external !== undefined &&
    matches(target.external, CORE_FORBIDDEN) &&
    !matches(target.external, ADAPTER_MAY_USE[adapter])
  )
    return `src/${adapter} imports its own driver or framework only, not ${target.external}`;
  if (into !== undefined && into !== adapter)
    return `src/${adapter} builds on the core, not on src/${into}: each adapter is a subpath entry of its own`;
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports stay inside the workspace boundaries (see scripts/lint/boundaries.js).' },
    schema: [],
  },
  create(context) {
    const fromRel = posix(relative(ROOT, context.filename));
    const check = (node) => {
      const source = node.source;
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const message = crossedBoundary(fromRel, source.value);
      if (message !== undefined) context.report({ node, message: `${source.value}: ${message}` });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

/** The plugin eslint.config.js registers as `retry-safe`. */
export default { rules: { boundaries } };
