import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { describeIdempotentFunction } from './idempotent-function.behaviour.js';
import { postgresBackend, suitePostgres } from './postgres-support.js';

// The same suites on PostgreSQL: the SQL functions keep the Redis scripts' contract, state for state.
const suite = suitePostgres();
const backend = postgresBackend(() => suite.pool);

describeCoordinatorBehaviour('PostgreSQL', backend);
describeCoordinatorHardening('PostgreSQL', backend);
describeIdempotentFunction('PostgreSQL', backend);
