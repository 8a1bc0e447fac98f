import { project } from '../jest.base.js';

// Scenario suites start real processes (Redis, services); each file isolates itself by port and key prefix.
// e2e has a single tsconfig.json (no tsconfig.test.json), so the transform points at it.
export default {
  // A global option in Jest (projects cannot set it).
  testTimeout: 60_000,
  projects: [
    project('e2e', ['<rootDir>/**/*.e2e-spec.ts'], {
      transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }] },
    }),
  ],
};
