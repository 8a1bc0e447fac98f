// `@retry-safe/app-shell`: the shell itself, what every app here is made of besides its features. Its root module
// (`shellAppModule`), start and shutdown (`bootstrap`), readiness, the shared Redis client, the interval loop. The
// rest is in subpath entries, each with what apps import of it: `./config` (the environment), `./http` (errors,
// the problem filter's options, request context, keys), `./telemetry` (metrics, logs), `./admin` (runtime settings,
// the journal) and `./otel` (the telemetry hook). provider-sim uses it too: it is infrastructure, with no business
// contract in it.
export { shellAppModule, type AppDeclaration } from './shell/shell-app-module.js';
export { type AppShellOptions } from './shell/app-shell.options.js';
export { bootstrap, shutdown, type BootstrapOptions } from './shell/bootstrap.js';
export {
  SHELL_APP_OPTIONS,
  createShellHttpAdapter,
  requestListenerOf,
  shellPlatform,
} from './shell/shell-http-adapter.js';
export { whenReady, type ReadinessCheck } from './health/health.controller.js';
export { answersWithin } from './health/answers-within.js';
export { REDIS_CLIENT, createRedisConnection, type RedisLocation } from './redis.js';
export { SHARED_LOOKUP_REDIS_OPTIONS } from './redis-lookup.js';
export { IntervalLoop, type IntervalLoopOptions, type IntervalTick } from './interval-loop.js';
