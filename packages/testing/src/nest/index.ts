/**
 * `@retry-safe/testing/nest`: in-process Nest apps for supertest suites, kept out of the main entry so that what
 * imports `@retry-safe/testing` without Nest (the scenario CLIs, the benchmarks) never loads `@nestjs/testing`.
 */
export { problemCatcher } from './problem-catcher.js';
export { createTestApp, type TestAppOptions } from './test-app.js';
