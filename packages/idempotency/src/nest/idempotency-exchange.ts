import { IdempotencyKeyMissingError, InvalidIdempotencyKeyError } from '../errors.js';
import { IdempotencyKeyRejection, parseIdempotencyKeyHeader, type KeyHeaderOptions } from '../key-header.js';
import type { KeyFrom } from './interfaces/idempotent-options.interface.js';
import type { IdempotentRoute } from './idempotent-route.js';
import type { CapturedResponse, StoredResponse } from './stored-response.js';

/** The header a request carries its key in unless `keyFrom` says otherwise (the IETF draft's name). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * One call of an `@Idempotent()` handler in its context (an HTTP request, a message, a GraphQL field): where its key
 * and default fingerprint come from, and how its answer is captured and replayed. The interceptor's protocol is the
 * same for every context; only this differs.
 */
export interface IdempotencyExchange {
  /** What the route's `keyFrom`, `fingerprint` and `scope` receive. */
  readonly input: unknown;
  /** The object the call is known by: a second interceptor on the same call passes it through. */
  readonly identity: object;
  /** The key as the route's `keyFrom` (or the context's default) finds it: a header's lines, or a value. */
  keySource(keyFrom: KeyFrom<never> | undefined): KeySource;
  /** The fingerprint's input when the route names none. */
  defaultFingerprint(): unknown;
  /** The authenticated principal, if the call carries one (`req.user`). */
  user(): unknown;
  /** What the handler's result is stored as, and what this caller gets. */
  capture(result: unknown, route: IdempotentRoute): Promise<CapturedResponse>;
  /** A thrown error that `storeIf` made final, as it is stored. */
  storedError(error: unknown, status: number, route: IdempotentRoute): StoredResponse;
  /** Called as the handler starts (as the coordinator's action): what it sends from now on may be held back. */
  beginHandler?(): void;
  /**
   * Called once the coordinator is done with the call (the record stored, given back, or replayed): what the
   * handler held back until then goes out (a RabbitMQ ack).
   */
  settle?(): void;
  /** Replays a stored answer: what the context sends again (HTTP: status, headers and the replay marker too). */
  replay(stored: StoredResponse): unknown;
}

/** Where a key was found: header lines (parsed as the draft says) or a value (taken as it is). */
export type KeySource =
  | { readonly from: 'header'; readonly lines: string | string[] | undefined }
  | { readonly from: 'value'; readonly value: unknown };

/**
 * The key of a call, or the error that says why it has none: missing (400 `idempotency_key_missing`) or not
 * acceptable (400 `idempotency_key_invalid`). A value must be a string or a finite number; the coordinator checks
 * its characters and length, as for a header's.
 */
export function keyOf(source: KeySource, operation: string): string {
  if (source.from === 'header') return idempotencyKeyFromHeader(source.lines, { operation });
  const { value } = source;
  if (value === undefined || value === null || value === '') {
    throw new IdempotencyKeyMissingError('no idempotency key', { operation });
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new InvalidIdempotencyKeyError(`the key is a ${typeof value}, not a string`, { operation });
}

/** Options of {@link idempotencyKeyFromHeader}. */
export interface KeyFromHeaderOptions extends KeyHeaderOptions {
  /** What the key is for, named in the error's context. @default none */
  readonly operation?: string;
}

/**
 * The key an `Idempotency-Key` header carries, read by the one parser (`parseIdempotencyKeyHeader`), or the error
 * every context answers for it: {@link IdempotencyKeyMissingError} (400 `idempotency_key_missing`) or
 * {@link InvalidIdempotencyKeyError} (400 `idempotency_key_invalid`, with the parser's reason). What an
 * `@Idempotent()` route reads its header with, and what an app's own key parameter can call.
 * @param lines - every field line of the header (Node's `req.headersDistinct[name]`), so a repeated header is refused.
 */
export function idempotencyKeyFromHeader(
  lines: string | readonly string[] | undefined,
  options: KeyFromHeaderOptions = {},
): string {
  const parsed = parseIdempotencyKeyHeader(lines, options);
  if (parsed.ok) return parsed.key;
  const context = { operation: options.operation };
  if (parsed.rejection === IdempotencyKeyRejection.Missing) {
    throw new IdempotencyKeyMissingError(parsed.reason, context);
  }
  throw new InvalidIdempotencyKeyError(parsed.reason, context);
}

/** The status an error would be answered with, in every context: an `HttpException`'s own, else 500. */
export function statusOfError(error: unknown): number {
  const status = (error as { getStatus?: () => unknown } | null)?.getStatus?.();
  return typeof status === 'number' ? status : 500;
}

/** Reads a dotted path (`meta.eventId`) in a plain object; `undefined` where it leads nowhere. */
export function valueAt(root: unknown, path: string): unknown {
  let value = root;
  for (const name of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** The header a `keyFrom` names, or the draft's `Idempotency-Key` when it names none (or no header). */
export function keyHeaderOf(keyFrom: KeyFrom<never> | undefined): string {
  return keyFrom !== undefined && typeof keyFrom === 'object' && 'header' in keyFrom
    ? keyFrom.header
    : IDEMPOTENCY_KEY_HEADER;
}

/** The source of a `keyFrom` that is a path or a function; `undefined` for a header (the context reads those). */
export function nonHeaderSource(
  keyFrom: KeyFrom<never> | undefined,
  input: unknown,
  roots: { payload?: unknown; arg?: unknown },
): KeySource | undefined {
  if (typeof keyFrom === 'function')
    return { from: 'value', value: (keyFrom as (req: unknown) => unknown)(input) };
  if (keyFrom !== undefined && 'payload' in keyFrom)
    return { from: 'value', value: valueAt(roots.payload, keyFrom.payload) };
  if (keyFrom !== undefined && 'arg' in keyFrom)
    return { from: 'value', value: valueAt(roots.arg, keyFrom.arg) };
  return undefined;
}
