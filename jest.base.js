// Shared Jest settings: ESM through ts-jest (NestJS 12 is ESM-only), run with NODE_OPTIONS=--experimental-vm-modules.
// Each package's jest.config.js picks its projects (unit: no network; integration: real Redis; e2e: all services).

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
