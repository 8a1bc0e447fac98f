import { hash } from 'node:crypto';
import { parseDuration } from '../duration.js';
import { InvalidIdempotencyOptionsError } from '../errors.js';
import { IDEMPOTENCY_DEFAULTS, IDEMPOTENCY_LIMITS } from '../limits.js';
import { InFlightMode } from '../options.js';
import { assertIntegerIn, assertOneOf, operationProblem } from '../validation.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import type { IdempotentOptions, KeyFrom, StoreIf } from './interfaces/idempotent-options.interface.js';

/** The defaults of every `@Idempotent()`, in one place (the TSDoc `@default`s quote these). */
export const IDEMPOTENT_ROUTE_DEFAULTS = {
  /** The coordinator's default lifetime of a result (24 hours). */
  ttl: IDEMPOTENCY_DEFAULTS.ttlMs,
  replayHeaders: ['Location'],
  /** Successes only: a handler that throws stores nothing, so a retry runs it again. */
  storeIf: ((_status, error) => error === undefined) satisfies StoreIf as StoreIf,
  maxStoredBytes: 1024 * 1024,
} as const;

/**
 * Response headers never stored for a replay, whatever the options say: a replay goes to whoever holds the key,
 * so a session cookie or a bearer token in it would hand one caller's credentials to another.
 */
export const SECRET_HEADERS: readonly string[] = [
  'set-cookie',
  'cookie',
  'authorization',
  'proxy-authorization',
];

// A header name is an RFC 9110 token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A scope made of these is kept readable in the record's name; any other is hashed, and a hashed one starts with
// `~`, which this set lacks, so the two forms never name one record.
const READABLE_SCOPE = /^[A-Za-z0-9_.@+=-]{1,40}$/;
// `~` and 22 base64url characters (128 bits of SHA-256).
const HASHED_SCOPE_LENGTH = 23;
const MAX_SCOPED_OPERATION = IDEMPOTENCY_LIMITS.operation.maxLength - HASHED_SCOPE_LENGTH - 1;

type AnyRequestOptions = IdempotentOptions<never>;
type RequestFunction = (req: unknown) => unknown;

/** One `@Idempotent()` route with its options merged (module < class < method) and checked. */
export interface IdempotentRoute {
  /** `<Controller class>.<method>`, for messages. */
  readonly name: string;
  readonly operation: string;
  readonly ttlMs: number;
  readonly fingerprint: RequestFunction | undefined;
  readonly scope: RequestFunction | false | undefined;
  readonly inFlight: InFlightMode | undefined;
  readonly keyFrom: KeyFrom<never> | undefined;
  /** Lower-case names, `content-type` first. */
  readonly replayHeaders: readonly string[];
  readonly storeIf: StoreIf;
  readonly maxStoredBytes: number;
}

/** A route whose `@Idempotent()` options cannot work: thrown at start-up, or by a `scope` at run time. */
export class IdempotentRouteError extends InvalidIdempotencyOptionsError {
  constructor(
    /** `<Controller class>.<method>`. */
    readonly route: string,
    problem: string,
  ) {
    super(`@Idempotent() on ${route}: ${problem}`, {});
  }
}

/**
 * Merges a route's options over its class's over the module's, checks them, and throws
 * {@link IdempotentRouteError} naming the route for anything that cannot work.
 */
export function resolveRoute(
  name: string,
  module: IdempotencyModuleOptions,
  ...layers: readonly (AnyRequestOptions | undefined)[]
): IdempotentRoute {
  const { ttl, fingerprint, scope, replayHeaders, storeIf, maxStoredBytes, keyFrom } = module;
  const defaults = { ttl, fingerprint, scope, replayHeaders, storeIf, maxStoredBytes, keyFrom };
  const merged: AnyRequestOptions = Object.assign(
    { inFlight: module.coordinator?.inFlight },
    ...[defaults, ...layers].map((layer) => definedOf(layer ?? {})),
  );
  try {
    return checked(name, merged);
  } catch (error) {
    if (error instanceof IdempotentRouteError) throw error;
    throw new IdempotentRouteError(name, (error as Error).message);
  }
}

function checked(name: string, options: AnyRequestOptions): IdempotentRoute {
  const operation = options.operation ?? name;
  const problem = operationProblem(operation);
  if (problem !== undefined) throw new IdempotentRouteError(name, `${problem} ('${operation}')`);
  const scope = options.scope as RequestFunction | false | undefined;
  if (scope !== undefined && scope !== false && typeof scope !== 'function') {
    throw new IdempotentRouteError(name, 'scope must be a function of the request, or false');
  }
  if (typeof scope === 'function' && operation.length > MAX_SCOPED_OPERATION) {
    throw new IdempotentRouteError(
      name,
      `operation is longer than ${MAX_SCOPED_OPERATION} characters, the most a scoped route can have`,
    );
  }
  for (const fn of ['fingerprint', 'storeIf'] as const) {
    if (options[fn] !== undefined && typeof options[fn] !== 'function') {
      throw new IdempotentRouteError(name, `${fn} must be a function`);
    }
  }
  const ttlMs = parseDuration(options.ttl ?? IDEMPOTENT_ROUTE_DEFAULTS.ttl, 'ttl');
  assertIntegerIn('ttl (ms)', ttlMs, IDEMPOTENCY_LIMITS.ttlMs.min, IDEMPOTENCY_LIMITS.ttlMs.max);
  if (options.inFlight !== undefined) {
    assertOneOf('inFlight', options.inFlight, Object.values(InFlightMode));
  }
  const maxStoredBytes = options.maxStoredBytes ?? IDEMPOTENT_ROUTE_DEFAULTS.maxStoredBytes;
  assertIntegerIn('maxStoredBytes', maxStoredBytes, 0);
  return {
    name,
    operation,
    ttlMs,
    fingerprint: options.fingerprint as RequestFunction | undefined,
    scope,
    inFlight: options.inFlight,
    keyFrom: checkedKeyFrom(name, options.keyFrom),
    replayHeaders: checkedReplayHeaders(options.replayHeaders ?? IDEMPOTENT_ROUTE_DEFAULTS.replayHeaders),
    storeIf: options.storeIf ?? IDEMPOTENT_ROUTE_DEFAULTS.storeIf,
    maxStoredBytes,
  };
}

/**
 * The module's own defaults, checked when the module starts (a secret replay header, a bad `ttl`), so a bad
 * option stops the app instead of the first request.
 */
export function checkModuleOptions(options: IdempotencyModuleOptions): void {
  resolveRoute('IdempotencyModule', options);
}

function checkedReplayHeaders(names: readonly string[]): readonly string[] {
  if (!Array.isArray(names)) throw new InvalidIdempotencyOptionsError('replayHeaders must be an array');
  const lower = names.map((name) => {
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
      throw new InvalidIdempotencyOptionsError(`replayHeaders: '${String(name)}' is not a header name`);
    }
    return name.toLowerCase();
  });
  const secret = lower.find((name) => SECRET_HEADERS.includes(name));
  if (secret !== undefined) {
    throw new InvalidIdempotencyOptionsError(
      `replayHeaders names '${secret}', which is never replayed: a replay goes to whoever sends the key, so it ` +
        `would hand this caller's credentials to another (refused: ${SECRET_HEADERS.join(', ')})`,
    );
  }
  return [...new Set(['content-type', ...lower])];
}

/**
 * The operation a request's record is named by: the route's, with the request's scope appended. A scope that is
 * not a non-empty string or a finite number is the route's mistake, never a shared bucket.
 */
export function operationFor(route: IdempotentRoute, req: unknown): string {
  if (typeof route.scope !== 'function') return route.operation;
  const value = route.scope(req);
  const scope = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof scope !== 'string' || scope.length === 0) {
    throw new IdempotentRouteError(
      route.name,
      `scope returned ${describe(value)}; it must return a non-empty string or a finite number ` +
        '(or set scope: false for a route every caller shares)',
    );
  }
  // A scope that would not fit readable is hashed too (the start-up check leaves room for a hashed one).
  const readable =
    READABLE_SCOPE.test(scope) &&
    route.operation.length + 1 + scope.length <= IDEMPOTENCY_LIMITS.operation.maxLength;
  const segment = readable
    ? scope
    : `~${hash('sha256', scope, 'base64url').slice(0, HASHED_SCOPE_LENGTH - 1)}`;
  return `${route.operation}.${segment}`;
}

function checkedKeyFrom(name: string, keyFrom: KeyFrom<never> | undefined): KeyFrom<never> | undefined {
  if (keyFrom === undefined || typeof keyFrom === 'function') return keyFrom;
  const source = typeof keyFrom === 'object' && keyFrom !== null ? Object.entries(keyFrom) : [];
  const [kind, value] = source[0] ?? [];
  if (
    source.length !== 1 ||
    !['header', 'payload', 'arg'].includes(kind ?? '') ||
    typeof value !== 'string' ||
    value === ''
  ) {
    throw new IdempotentRouteError(
      name,
      "keyFrom must be { header: 'Idempotency-Key' }, { payload: 'path.to.key' }, { arg: 'path.to.key' } or a function",
    );
  }
  return keyFrom;
}

function describe(value: unknown): string {
  if (value === '') return 'an empty string';
  if (value === null || value === undefined) return String(value);
  return typeof value === 'number' ? String(value) : `a ${typeof value}`;
}

function definedOf<T extends object>(options: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined) (out as Record<string, unknown>)[name] = value;
  }
  return out;
}
