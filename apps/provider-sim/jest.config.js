import { project } from '../../jest.base.js';

// unit: plain classes, no listener. integration: the Nest app over HTTP on 127.0.0.1 (supertest; no Redis needed).
export default {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.spec.ts']),
    project('integration', ['<rootDir>/test/integration/**/*.spec.ts']),
  ],
};
