import { project } from '../jest.base.js';

// unit: no network, no process (the soak's verdict, table and plot from hand-made series); `pnpm test:unit` runs
// them with every workspace's. soak-selftest: two short soaks on a whole stack each, a few minutes, run only by
// `pnpm soak:selftest` (never by `pnpm test`).
export default {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.spec.ts']),
    project('soak-selftest', ['<rootDir>/test/soak/**/*.soak-spec.ts']),
  ],
};
