import { hostname } from 'node:os';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import { currentLogFields } from './log-context.js';

/** `LOG_LEVEL`: pino's level names, most verbose first; `silent` writes nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a redacted value is replaced with. */
export const REDACTED = '[Redacted]';

/**
 * Fields never written as they are: idempotency keys (a key names a payment and can replay its result), bearer
 * and internal tokens, credentials, at the top level of a line and where headers sit (a line's `headers`, a
 * request's, an HTTP client error's). Fixed paths, not wildcards: a leading `*` would walk every field of every
 * line (it doubled a line's cost), and the hot path writes one line per request.
 */
export const REDACTED_PATHS: readonly string[] = [
  'idempotencyKey',
  'authorization',
  'token',
  'password',
  'credentials',
  'headers.authorization',
  'headers.cookie',
  'headers["idempotency-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'err.config.headers.Authorization',
  'err.config.headers["Idempotency-Key"]',
];

/** Options of {@link createShellLogger}. */
export interface ShellLoggerOptions {
  /** The `service` field of every line (`gateway`, `orders`, `payments`, `provider`, `worker`). */
  readonly service: string;
  /** `LOG_LEVEL`. @default 'info' */
  readonly level?: LogLevel;
  /** Where lines go. @default stdout, written synchronously (a crash fault's last line is not lost) */
  readonly destination?: DestinationStream;
}

/** What a line carries of the active span, in the names of OpenTelemetry's log data model. */
interface TraceFields {
  trace_id?: string;
  span_id?: string;
  trace_flags?: string;
}

/**
 * The fields a line gets from where it is written: the unit of work's ({@link currentLogFields}) and, when a span
 * is active (OpenTelemetry's API: the SDK, where one is started, sets it), `trace_id`, `span_id` and
 * `trace_flags`. A fresh object (pino merges the line's own fields into it), built with `Object.assign`: an
 * object spread here cost three times the rest of the line.
 */
function contextFields(): object {
  const fields: TraceFields = Object.assign({}, currentLogFields()) as TraceFields;
  const span = trace.getActiveSpan()?.spanContext();
  if (span !== undefined && isSpanContextValid(span)) {
    fields.trace_id = span.traceId;
    fields.span_id = span.spanId;
    fields.trace_flags = span.traceFlags === 1 ? '01' : span.traceFlags.toString(16).padStart(2, '0');
  }
  return fields;
}

/**
 * The one log shape of every service: JSON lines, `level` as a name, an ISO `time`, `service`, `pid` and
 * `hostname`, then the unit of work's fields (`requestId`, `trace_id`, `span_id`...), the line's own fields, and
 * `msg`. {@link REDACTED_PATHS} are replaced with {@link REDACTED}.
 */
export function createShellLogger(options: ShellLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service, pid: process.pid, hostname: hostname() },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The line's own fields win over the context's (a line that names its requestId keeps it, once).
      mixin: contextFields,
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * Nest's logger for an app (nestjs-pino's `Logger` over {@link createShellLogger}): `app.useLogger(...)` makes
 * every `new Logger(context)` of the app, and Nest's own lines, write the shell's shape, with `context` as a field.
 * nestjs-pino keeps one root logger per process: the first app's. A process runs one service here; a test that
 * reads lines builds one app per process (Jest: per test file).
 */
export function createNestLogger(options: ShellLoggerOptions): NestPinoLogger {
  const params = { pinoHttp: { logger: createShellLogger(options) } };
  return new NestPinoLogger(new PinoLogger(params), params);
}
