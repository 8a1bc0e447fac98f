// The compose tier (`pnpm test:compose`, scripts/compose-tier.sh): suites against the real compose files on a
// Docker engine. Never part of `pnpm test`: it needs an engine and the built images (the script brings both).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { project } from './jest.base.js';

const e2e = join(dirname(fileURLToPath(import.meta.url)), 'e2e');

export default {
  // A global option in Jest (projects cannot set it): containers start, restart and drain in tens of seconds.
  testTimeout: 120_000,
  projects: [
    {
      ...project('compose', ['<rootDir>/compose/**/*.compose-spec.ts'], {
        transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }] },
      }),
      rootDir: e2e,
    },
  ],
};
