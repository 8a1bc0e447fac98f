// Shared Jest settings: ESM through ts-jest (NestJS 12 is ESM-only), run with NODE_OPTIONS=--experimental-vm-modules.
// Each package's jest.config.js picks its projects (unit: no network; integration: real Redis; e2e: all services).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** @param {string} displayName @param {string[]} testMatch @param {Record<string, unknown>} [extra] */
export function project(displayName, testMatch, extra = {}) {
  return {
    displayName,
    testMatch,
    preset: 'ts-jest/presets/default-esm',
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: {
      '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json' }],
    },
    ...extra,
  };
}

/**
 * The `kind` projects ('unit' or 'integration') of every workspace with a jest.config.js (apps/*, packages/*,
 * scenarios, scripts), for one Jest run over all of them (`pnpm test:unit`, `pnpm test:integration`): Jest boots
 * once and spreads the suites over its workers, where a run per package booted it a dozen times, one after the
 * other. Each keeps its package as root (paths, tsconfig, options as in the package's own run) and is named
 * `<kind> <workspace>`.
 * @param {'unit' | 'integration'} kind
 */
export async function workspaceProjects(kind) {
  const root = dirname(fileURLToPath(import.meta.url));
  const workspaces = ['apps', 'packages']
    .flatMap((group) => readdirSync(join(root, group)).map((name) => `${group}/${name}`))
    .concat('scenarios', 'scripts')
    .filter((dir) => existsSync(join(root, dir, 'jest.config.js')))
    .sort();
  const projects = [];
  for (const dir of workspaces) {
    const { default: config } = await import(pathToFileURL(join(root, dir, 'jest.config.js')).href);
    for (const project of config.projects) {
      if (project.displayName === kind)
        projects.push({ ...project, displayName: `${kind} ${dir}`, rootDir: join(root, dir) });
    }
  }
  return projects;
}
