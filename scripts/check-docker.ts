/**
 * `pnpm check:docker`: CI has no Docker engine, so this reads every Dockerfile and compose file the way a build
 * would use them and fails on what would break it (the rules: docker/dockerfile-rules.ts, docker/compose-rules.ts).
 * A Dockerfile with `ARG APP` (ops/Dockerfile) is checked once for every app under apps/.
 * Usage: node scripts/dist/check-docker.js [--root <repo>]. Exit code 1 lists every problem.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildsAnyApp, checkCompose } from './docker/compose-rules.js';
import { checkDockerfile, type RepositoryFacts } from './docker/dockerfile-rules.js';
import { deployableApps, dockerignore, repoRootFrom, workspacePackages } from './docker/repository.js';

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

function main(): number {
  const { values } = parseArgs({ options: { root: { type: 'string' } } });
  const root = values.root ?? repoRootFrom(dirname(fileURLToPath(import.meta.url)));
  const manager = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager?: string }
  ).packageManager;
  const facts: RepositoryFacts = {
    root,
    packages: workspacePackages(root),
    ignored: dockerignore(root),
    pnpmVersion: manager?.startsWith('pnpm@') ? manager.slice('pnpm@'.length) : undefined,
  };
  const apps = deployableApps(root);
  const dockerfiles = findDockerfiles(root);
  const problems = [
    ...(dockerfiles.length === 0 ? ['no Dockerfile found'] : []),
    ...dockerfiles.flatMap((file) =>
      buildsAnyApp(file)
        ? apps.flatMap((app) => checkDockerfile(facts, file, { APP: app }))
        : checkDockerfile(facts, file),
    ),
    ...checkCompose(root, apps),
  ];
  if (problems.length > 0) {
    console.error(`check-docker: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
    return 1;
  }
  console.log(
    `check-docker: ${dockerfiles.length} Dockerfile(s) for ${apps.length} apps and the compose files are consistent with the repository`,
  );
  return 0;
}

process.exitCode = main();
