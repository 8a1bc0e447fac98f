import { workspaceProjects } from './jest.base.js';

// `pnpm test:integration`: the integration suites of every workspace in one Jest run, on two workers. Each suite
// isolates itself (its own key prefix, database, or private server on a free port), so two can run side by side;
// the timeout of a test or hook without its own is 30 s, not Jest's 5 s, so that a private server started in a
// `beforeAll` while the other worker is busy is not a failure.
export default { testTimeout: 30_000, projects: await workspaceProjects('integration') };
