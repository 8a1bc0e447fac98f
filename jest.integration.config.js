import { workspaceProjects } from './jest.base.js';

// `pnpm test:integration`: the integration suites of every workspace in one Jest run.
export default { projects: await workspaceProjects('integration') };
