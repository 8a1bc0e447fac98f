import { project } from '../../jest.base.js';

// unit: the config's rules and the page's diagram reader. integration: the API in-process over loopback HTTP, its
// stack a stand-in (no process started). The page in a browser, on the real stack, is e2e/console.
export default {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.spec.ts']),
    project('integration', ['<rootDir>/test/integration/**/*.spec.ts']),
  ],
};
