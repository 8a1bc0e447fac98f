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
  it('a pnpm install and deploy without a cache mount on the store', () => {
    expect(
      problemsWith((t) => t.replace('  --mount=type=cache,id=pnpm-store,target=/pnpm/store \\\n', '')),
    ).toEqual([
      'pnpm install without a cache mount (--mount=type=cache)',
      'pnpm deploy without a cache mount (--mount=type=cache)',
    ]);
  });

  it('a --store-dir that is not the cache mount', () => {
    expect(
      problemsWith((t) =>
        t.replace('--prefer-offline --store-dir /pnpm/store', '--prefer-offline --store-dir /root/store'),
      ),
    ).toEqual(['pnpm install --store-dir /root/store is not one of the cache mounts (/pnpm/store)']);
  });

  it('an install without the lockfile mounted', () => {
    expect(
      problemsWith((t) =>
        t.replace('  --mount=type=bind,source=pnpm-lock.yaml,target=pnpm-lock.yaml \\\n', ''),
      ),
    ).toEqual(['pnpm install before pnpm-lock.yaml was copied']);
  });

  it("an install, a build and a deploy without the app's sources", () => {
    expect(
      problemsWith((t) => t.replace('source=apps,target=apps,rw', 'source=apps/payments,target=apps,rw')),
    ).toEqual([
      'pnpm install --filter @retry-safe/gateway... before apps/gateway/package.json was in the image',
      'pnpm build for @retry-safe/gateway... before apps/gateway/src was in the image (copied, not excluded)',
      'pnpm deploy of @retry-safe/gateway before apps/gateway/src was in the image (copied, not excluded)',
    ]);
  });

  it('a bind-mount source that does not exist or that .dockerignore excludes', () => {
    expect(
      problemsWith((t) =>
        t
          .replace('source=ops/supervise.mjs,', 'source=ops/supervisor.mjs,')
          .replace('source=tsconfig.base.json,', 'source=e2e,'),
      ),
    ).toEqual([
      'bind mount source e2e is excluded by .dockerignore',
      'bind mount source ops/supervisor.mjs does not exist',
    ]);
  });

  it('a build in a later RUN: what a bind mount brought is gone', () => {
    expect(
      problemsWith((t) =>
        t.replace(
          'FROM ${NODE_IMAGE}\n# The port',
          'RUN pnpm --filter "@retry-safe/${APP}" run build\n\nFROM ${NODE_IMAGE}\n# The port',
        ),
      ),
    ).toEqual([
      'pnpm build for @retry-safe/gateway before apps/gateway/src was in the image (copied, not excluded)',
    ]);
  });

  it('an APP that names no app, and an unset APP', () => {
    expect(problemsOf(DOCKERFILE, { APP: 'gatewy' })[0]).toBe(
      'pnpm --filter @retry-safe/gatewy...: no workspace package is named @retry-safe/gatewy',
    );
    expect(problemsOf(DOCKERFILE, {})[0]).toBe(
      'pnpm --filter @retry-safe/${APP}...: no workspace package is named @retry-safe/${APP}',
    );
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
