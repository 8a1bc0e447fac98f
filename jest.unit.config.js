import { workspaceProjects } from './jest.base.js';

// `pnpm test:unit`: the unit suites of every workspace in one Jest run.
export default { projects: await workspaceProjects('unit') };
