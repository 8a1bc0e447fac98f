/**
 * `@retry-safe/scenarios`: the failure scenarios (one definition each: the question, the designs, the numbers each
 * must produce, the steps that measure them), the engine that runs them against any stack over HTTP, the launcher
 * of a local stack, and the chaos run. The CLIs (`pnpm demo`, `pnpm scenarios`, `pnpm chaos`) and the e2e suites
 * import the same definitions, so the printed tables and the tested numbers cannot drift.
 */
export * from './definitions/index.js';
export { ACK_FAILS_ONCE, type JobsData } from './definitions/jobs.scenario.js';
export { secondGot, type KeysData } from './definitions/keys.scenario.js';
export { SHORT_LEASE_MS, type LeaseData } from './definitions/lease.scenario.js';
export { LOSE_ANSWER_ONCE, type ChainData } from './definitions/chain.scenario.js';
export {
  APPLY_AMOUNT,
  RACE_HOLD_MS,
  timesApplied,
  type ApplyOnceData,
  type ApplyPhase,
} from './definitions/apply-once.scenario.js';
export { ordersSince, retryGot, type DbEffectData } from './definitions/db-effect.scenario.js';
export type { OutboxData } from './definitions/outbox.scenario.js';
export {
  OVERPAY_AMOUNT,
  OVERPAY_TABS,
  countedAnswers,
  type OverpayData,
} from './definitions/overpay.scenario.js';
export {
  MAIL_OUTAGE,
  OUTAGE_INVOICES,
  type MailOutageData,
  type MailOutageOptions,
} from './definitions/mail-outage.scenario.js';
export type { ProviderData } from './definitions/provider.scenario.js';
export type { RedisDownData } from './definitions/redis-down.scenario.js';
export * from './engine/scenario.js';
export * from './engine/target.js';
export { send, sendExpecting, type ClientCall, type HttpResult, type SendOptions } from './engine/http.js';
export {
  formatResult,
  jsonReport,
  markdownTable,
  runAll,
  writeMarkdown,
  type RunAllOptions,
} from './engine/runner.js';
export { startRedisGate, type RedisGate } from './engine/redis-gate.js';
export { stackTarget } from './engine/stack-target.js';
export { armKill, bringBack, holdAt, killAt } from './engine/crash.js';
export { sequenceDiagram, type DiagramInput, type TimedNote } from './engine/diagram.js';
export { createdOrderId, fixtureOrderBody } from './engine/fixture-orders.js';
export { DEMO_API_TOKENS, DEMO_INTERNAL_TOKEN, DEMO_TENANTS } from './demo-tenants.js';
export {
  startStack,
  type ProviderCharge,
  type ServiceEnv,
  type ServiceName,
  type Stack,
  type StackOptions,
} from './stack/stack.js';
export { runChaos } from './chaos/chaos-engine.js';
export { formatChaosReport } from './chaos/chaos-table.js';
export type {
  ChaosOptions,
  ChaosPlanned,
  ChaosReport,
  InvoicesVerdict,
  OrdersVerdict,
  PaymentsVerdict,
  PerService,
} from './chaos/chaos-report.js';
export { repoRoot } from './repo-root.js';
export { startDemoStack, type DemoStack, type DemoStackOptions } from './stack/demo-stack.js';
