export { freePort } from './free-port.js';
export { CLOCK_SLACK_MS, busyFor, sleep, waitFor, whenAborted, type WaitForOptions } from './wait.js';
export { metricSample, metricValue } from './metrics.js';
export { exportedMetricNames, promqlMetricNames, promqlSelectors, type PromqlSelector } from './promql.js';
export {
  startRedis,
  startPrivateRedisServer,
  type RedisHandle,
  type RedisControl,
  type StartRedisOptions,
} from './redis-server.js';
export {
  postgresBinaries,
  startPostgres,
  startPrivatePostgres,
  type PostgresControl,
  type PostgresHandle,
  type PrivatePostgresOptions,
  type StartPostgresOptions,
} from './postgres-server.js';
export { poolThrough, recordStatements, withTransaction } from './postgres-helpers.js';
export type { ServerControl } from './server-control.js';
export { startRedisCluster, type RedisClusterHandle } from './redis-cluster.js';
export {
  startServiceProcess,
  telemetryHookFor,
  type ServiceProcess,
  type ServiceProcessOptions,
} from './service-process.js';
export { childrenOf, trySignal } from './process-tree.js';
export {
  ProxyDirection,
  startTcpProxy,
  type ProxyConnection,
  type TcpProxy,
  type TcpProxyTarget,
} from './tcp-proxy.js';
export { captureProblem, type SentProblem } from './capture-problem.js';
export { startRedisReplication, type RedisReplicationHandle } from './redis-replication.js';
export {
  INTERNAL_SERVICE_DEFAULTS,
  TEST_INTERNAL_AUTHORIZATION,
  TEST_INTERNAL_TOKEN,
} from './credentials.js';
export {
  decodeOtlpSpans,
  startSpanCollector,
  type CollectedSpan,
  type SpanAttributeValue,
  type SpanCollector,
  type SpanKindName,
} from './span-collector.js';
