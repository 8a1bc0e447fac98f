import { project } from '../../jest.base.js';

// unit: no network. integration: the Nest app in-process on a real Redis, with its downstream client replaced.
export default {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.spec.ts']),
    project('integration', ['<rootDir>/test/integration/**/*.spec.ts']),
  ],
};
