import { project } from '../../jest.base.js';

// unit: the config's rules and the page's diagram reader, no stack (the page in a browser is e2e/console).
export default {
  projects: [project('unit', ['<rootDir>/test/unit/**/*.spec.ts'])],
};
