import { project } from '../../jest.base.js';

export default { projects: [project('integration', ['<rootDir>/test/integration/**/*.spec.ts'])] };
