import { project } from '../jest.base.js';

export default {
  projects: [project('unit', ['<rootDir>/test/unit/**/*.spec.ts'])],
};
