/** Every scenario, in the order the runner and the demo run them. */
import { applyOnceScenario } from './apply-once.scenario.js';
import { chainScenario } from './chain.scenario.js';
import { dbEffectScenario } from './db-effect.scenario.js';
import { jobsScenario } from './jobs.scenario.js';
import { keysScenario } from './keys.scenario.js';
import { leaseScenario } from './lease.scenario.js';
import { mailOutageScenario30s } from './mail-outage.scenario.js';
import { outboxScenario } from './outbox.scenario.js';
import { overpayScenario } from './overpay.scenario.js';
import { providerScenario } from './provider.scenario.js';
import { redisDownScenario } from './redis-down.scenario.js';
import type { Scenario } from '../engine/scenario.js';

export const SCENARIOS: ReadonlyArray<Scenario<unknown>> = [
  keysScenario,
  chainScenario,
  providerScenario,
  jobsScenario,
  leaseScenario,
  mailOutageScenario30s,
  // Orders' own data: each kills orders at a fault point and starts it again.
  dbEffectScenario,
  applyOnceScenario,
  outboxScenario,
  overpayScenario,
  // Last: it takes Redis away from every service.
  redisDownScenario,
] as ReadonlyArray<Scenario<unknown>>;

export {
  applyOnceScenario,
  chainScenario,
  dbEffectScenario,
  jobsScenario,
  keysScenario,
  leaseScenario,
  outboxScenario,
  overpayScenario,
  providerScenario,
  redisDownScenario,
};
export { mailOutageScenario, mailOutageScenario30s } from './mail-outage.scenario.js';
