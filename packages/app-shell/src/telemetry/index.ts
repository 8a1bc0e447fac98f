// `@retry-safe/app-shell/telemetry`: an app's metrics and logs. `HttpMetrics` (the class an app's metrics extend),
// the context a unit of work that is not a request logs with, the logger a tool outside the shell builds. Traces
// start in `@retry-safe/app-shell/otel`. Only what apps import is exported.
export { createNestLogger, type ShellLoggerOptions } from '../logging/shell-logger.js';
export { withLogContext, type LogFields } from '../logging/log-context.js';
export { MetricsListener } from './metrics-listener.js';
export { HttpMetrics, type Counter, type Gauge, type Histogram } from './metrics.js';
