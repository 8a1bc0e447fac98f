import { postgresWorld, suitePostgres } from './postgres-support.js';
import { describeStoreOutage } from './store-outage.behaviour.js';

// A private PostgreSQL this suite stops, pauses and restarts: every call stays bounded by commandTimeoutMs.
const suite = suitePostgres({ controllable: true }, 10);

describeStoreOutage('PostgreSQL', () => ({
  world: (commandTimeoutMs) => postgresWorld(suite.pool, { commandTimeoutMs }),
  stop: () => suite.server.control!.stop(),
  start: () => suite.server.control!.start(),
  pause: () => suite.server.control!.pause(),
  resume: () => suite.server.control!.resume(),
}));
