import { faultyPostgres, suiteFaultyStores } from './faulty-store.js';
import { describeLostReplies } from './lost-replies.behaviour.js';

// The same store-independent suite on PostgreSQL, a TCP proxy between the pool and the server.
describeLostReplies('PostgreSQL', suiteFaultyStores(faultyPostgres));
