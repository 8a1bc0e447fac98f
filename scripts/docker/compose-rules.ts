/**
 * The rules the compose files must keep: every `dockerfile:` exists; a Dockerfile that builds any app (`ARG APP`)
 * gets an `APP` naming an app under apps/; and every app is built by some service.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One `build:` of a compose file, in the flow form the compose files use (`{ dockerfile: ..., args: {...} }`). */
export interface ComposeBuild {
  readonly file: string;
  readonly dockerfile: string;
  readonly args: Readonly<Record<string, string>>;
}

/** The compose files at the root (`docker-compose*.yml`, `compose*.yaml`). */
export function composeFiles(root: string): string[] {
  return readdirSync(root)
    .filter((name) => /^docker-compose.*\.ya?ml$|^compose.*\.ya?ml$/.test(name))
    .sort();
}

/** Every `dockerfile:` of the compose files, with the `args` beside it. */
export function composeBuilds(root: string): ComposeBuild[] {
  return composeFiles(root).flatMap((file) =>
    [
      ...readFileSync(join(root, file), 'utf8').matchAll(
        /dockerfile:\s*['"]?([^'",}\s]+)['"]?(?:\s*,\s*args:\s*\{([^}]*)\})?/g,
      ),
    ].map((match) => ({
      file,
      dockerfile: match[1]!,
      args: Object.fromEntries(
        (match[2] ?? '')
          .split(',')
          .map((pair) => pair.split(':').map((part) => part.trim().replace(/^['"]|['"]$/g, '')))
          .filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== ''),
      ),
    })),
  );
}

/** True when the Dockerfile builds whichever app `--build-arg APP` names. */
export function buildsAnyApp(dockerfile: string): boolean {
  return /^ARG\s+APP\s*$/m.test(readFileSync(dockerfile, 'utf8'));
}

export function checkCompose(root: string, apps: readonly string[]): string[] {
  const problems: string[] = [];
  const built = new Set<string>();
  for (const build of composeBuilds(root)) {
    const path = join(root, build.dockerfile);
    if (!existsSync(path)) {
      problems.push(`${build.file}: dockerfile ${build.dockerfile} does not exist`);
      continue;
    }
    if (!buildsAnyApp(path)) continue;
    const app = build.args['APP'];
    if (app === undefined) problems.push(`${build.file}: ${build.dockerfile} needs args: { APP: <app> }`);
    else if (!apps.includes(app))
      problems.push(`${build.file}: APP ${app} is not an app (${apps.join(', ')})`);
    else built.add(app);
  }
  const unbuilt = apps.filter((app) => !built.has(app));
  if (built.size > 0 && unbuilt.length > 0) problems.push(`no compose service builds ${unbuilt.join(', ')}`);
  return problems;
}
