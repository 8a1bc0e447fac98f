import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDockerfile, type RepositoryFacts } from '../../docker/dockerfile-rules.js';
import { deployableApps, dockerignore, workspacePackages } from '../../docker/repository.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'ops', 'Dockerfile'), 'utf8');
const facts: RepositoryFacts = {
  root: ROOT,
  packages: workspacePackages(ROOT),
  ignored: dockerignore(ROOT),
  pnpmVersion: '12.4.2',
};

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'check-docker-'));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The problems of a Dockerfile with `text` (written to a scratch file), without their file and line. */
function problemsOf(text: string, args: Record<string, string>): string[] {
  const file = join(scratch, `Dockerfile.${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, text);
  return checkDockerfile(facts, file, args).map((problem) => problem.replace(/^[^:]*:(\d+:)? ?/, ''));
}

/** The problems of ops/Dockerfile with `edit` applied (the edit must change it), for APP=gateway. */
function problemsWith(edit: (text: string) => string): string[] {
  const text = edit(DOCKERFILE);
  expect(text).not.toBe(DOCKERFILE);
  return problemsOf(text, { APP: 'gateway' });
}

describe('ops/Dockerfile', () => {
  it.each(deployableApps(ROOT))('builds %s with no problem', (app) => {
    expect(checkDockerfile(facts, join(ROOT, 'ops', 'Dockerfile'), { APP: app })).toEqual([]);
  });

  it('is checked for all five apps', () => {
    expect(deployableApps(ROOT)).toEqual(['gateway', 'invoice-worker', 'orders', 'payments', 'provider-sim']);
  });
});

describe('the rules refuse', () => {
  it('a pnpm install without a cache mount on the store', () => {
    expect(
      problemsWith((t) => t.replace(/RUN --mount=type=cache,[^\n]*\\\n\s*pnpm install/, 'RUN pnpm install')),
    ).toEqual(['pnpm install without a cache mount (--mount=type=cache)']);
  });

  it('a --store-dir that is not the cache mount', () => {
    expect(
      problemsWith((t) =>
        t.replace('pnpm fetch --store-dir /pnpm/store', 'pnpm fetch --store-dir /root/store'),
      ),
    ).toEqual(['pnpm fetch --store-dir /root/store is not one of the cache mounts (/pnpm/store)']);
  });

  it('a build stage that does not inherit the lockfile from the deps stage', () => {
    expect(problemsWith((t) => t.replace('FROM deps AS build', 'FROM base AS build'))).toEqual([
      'pnpm install before pnpm-workspace.yaml was copied',
      'pnpm install before pnpm-lock.yaml was copied',
    ]);
  });

  it("a build and a deploy before the app's sources were copied", () => {
    expect(
      problemsWith((t) =>
        t.replace('COPY apps/${APP}/ apps/${APP}/', 'COPY apps/${APP}/package.json apps/${APP}/'),
      ),
    ).toEqual([
      'pnpm build for @retry-safe/gateway... before apps/gateway/src was in the image (copied, not excluded)',
      'pnpm deploy of @retry-safe/gateway before apps/gateway/src was in the image (copied, not excluded)',
    ]);
  });

  it('an APP that names no app, and an unset APP', () => {
    expect(problemsOf(DOCKERFILE, { APP: 'gatewy' }).slice(0, 2)).toEqual([
      'COPY source apps/gatewy/ does not exist',
      'pnpm --filter @retry-safe/gatewy...: no workspace package is named @retry-safe/gatewy',
    ]);
    expect(problemsOf(DOCKERFILE, {})[0]).toBe('COPY source apps/${APP}/ uses an unset build argument');
  });

  it('a pnpm other than packageManager, a root final stage, no HEALTHCHECK', () => {
    expect(
      problemsWith((t) =>
        t
          .replace('pnpm@12.4.2', 'pnpm@11.0.0')
          .replace('USER node', 'USER root')
          .replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, ''),
      ),
    ).toEqual([
      "installs pnpm@11.0.0 but package.json's packageManager is pnpm@12.4.2",
      'the final stage runs as root',
      'the final stage has no HEALTHCHECK',
    ]);
  });
});
