import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { postgresBackend, suitePostgres } from './postgres-support.js';

// The same suite on PostgreSQL: the SQL functions keep the Redis scripts' contract, state for state.
const suite = suitePostgres();

describeCoordinatorBehaviour(
  'PostgreSQL',
  postgresBackend(() => suite.pool),
);
