import {
  Inject,
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Type,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { lastValueFrom, of, type Observable } from 'rxjs';
import { jsonCodec, type Codec } from '../codecs.js';
import { IdempotencyCoordinator } from '../coordinator.js';
import { encryptedCodec } from '../encryption.js';
import { IdempotencyKeyMissingError, InvalidIdempotencyKeyError } from '../errors.js';
import { fingerprintOf, type FingerprintValue } from '../fingerprint.js';
import { IdempotencyKeyRejection, parseIdempotencyKeyHeader } from '../key-header.js';
import { CoordinateOutcome, type CoordinateRequest } from '../options.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { IdempotentRouteError, operationFor, type IdempotentRoute } from './idempotent-route.js';
import { IdempotentRoutes } from './idempotent-routes.js';
import { captureResult, replayBody, type CapturedResponse, type StoredResponse } from './stored-response.js';
import { HttpExchange, type PlatformRequest } from './http-exchange.js';

/** The header a replayed response carries. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Thrown by the action when `storeIf` says a success is not final: only a throwing action gives its reservation
 * back. Caught in `settle`, by identity, right around the call that sees it.
 */
const NOT_FINAL = Object.freeze({ reason: 'storeIf: not final' });

/**
 * Requests already inside an `@Idempotent()` interceptor: with the decorator on both a route and its class, Nest
 * runs the interceptor twice, and the inner run would wait for the outer's claim of the same key until it timed out.
 */
const intercepted = new WeakSet<object>();

/** What one caller gets from an `@Idempotent()` route. */
type Settled =
  | { readonly kind: 'replayed'; readonly stored: StoredResponse }
  | { readonly kind: 'answered'; readonly body: unknown }
  | { readonly kind: 'threw'; readonly error: unknown };

/**
 * Runs an `@Idempotent()` route through the coordinator: the handler runs once per key (and scope), and every
 * repeat gets its status, body and chosen headers again with `Idempotent-Replayed: true`. Only what `storeIf`
 * calls final is stored; anything else gives its reservation back, so a retry runs the handler again. Reads and
 * writes the response through Nest's HTTP adapter, so it is the same on Express and on Fastify.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');
  private readonly codec: Codec<StoredResponse>;
  /** Routes already warned about an authenticated request without a scope (once per route). */
  private readonly warned = new WeakSet<IdempotentRoute>();

  constructor(
    private readonly routes: IdempotentRoutes,
    private readonly coordinator: IdempotencyCoordinator,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) options: IdempotencyModuleOptions,
  ) {
    const json = jsonCodec<StoredResponse>();
    this.codec = options.encryption === undefined ? json : encryptedCodec(json, options.encryption);
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const route = this.routes.of(context.getClass() as Type, context.getHandler());
    const http = context.switchToHttp();
    if (route === undefined || intercepted.has(http.getRequest<object>())) return next.handle();
    intercepted.add(http.getRequest<object>());
    const exchange = new HttpExchange(
      this.adapterHost.httpAdapter,
      http.getRequest<PlatformRequest>(),
      http.getResponse<object>(),
    );
    const key = keyOf(exchange, route.operation);
    this.warnIfShared(route, exchange.request);
    let operation: string;
    try {
      operation = operationFor(route, exchange.request);
    } catch (error) {
      if (error instanceof IdempotentRouteError) this.logger.error(error.message);
      throw error;
    }
    const settled = await this.settle(route, exchange, next, {
      operation,
      key,
      ttlMs: route.ttlMs,
      codec: this.codec,
      fingerprint: fingerprintOf(this.fingerprint(route, exchange) as FingerprintValue),
      ...(route.inFlight === undefined ? {} : { inFlight: route.inFlight }),
    });
    if (settled.kind === 'threw') throw settled.error;
    if (settled.kind === 'answered') return of(settled.body);
    exchange.setStatus(settled.stored.status);
    for (const [name, value] of Object.entries(settled.stored.headers)) exchange.setHeader(name, value);
    exchange.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return of(replayBody(settled.stored));
  }

  /**
   * Runs the handler through the coordinator and says what this caller gets: the stored response of an earlier
   * request, or its own run's (its body, or what it threw: the first caller's error goes to the app's filters as
   * it was thrown, even when `storeIf` made it final).
   */
  private async settle(
    route: IdempotentRoute,
    exchange: HttpExchange,
    next: CallHandler,
    request: CoordinateRequest<StoredResponse>,
  ): Promise<Settled> {
    let own: Settled | undefined;
    const action = async (): Promise<StoredResponse> => {
      let captured: CapturedResponse;
      try {
        captured = await this.run(route, exchange, next);
      } catch (error) {
        const status = exchange.statusOfError(error);
        if (!route.storeIf(status, error)) throw error;
        own = { kind: 'threw', error };
        return { kind: 'error', status, headers: exchange.headers(route.replayHeaders), body: bodyOf(error) };
      }
      own = { kind: 'answered', body: captured.body };
      if (!route.storeIf(captured.stored.status, undefined)) throw NOT_FINAL;
      return captured.stored;
    };
    try {
      const { value, outcome } = await this.coordinator.coordinateWithOutcome(request, action);
      // Executed or unprotected: the action ran in this call, so `own` is set.
      return outcome === CoordinateOutcome.Replayed ? { kind: 'replayed', stored: value } : own!;
    } catch (error) {
      // Not final: the reservation was given back (a retry runs the handler again); this caller keeps its answer.
      if (error === NOT_FINAL && own !== undefined) return own;
      throw error;
    }
  }

  private async run(
    route: IdempotentRoute,
    exchange: HttpExchange,
    next: CallHandler,
  ): Promise<CapturedResponse> {
    const result: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
    return captureResult(
      result,
      exchange.status(),
      exchange.headers(route.replayHeaders),
      route.maxStoredBytes,
    );
  }

  // The method, the path (the query is not part of what a POST does) and the parsed body.
  private fingerprint(route: IdempotentRoute, exchange: HttpExchange): unknown {
    if (route.fingerprint !== undefined) return route.fingerprint(exchange.request);
    return { method: exchange.request.method, path: exchange.path(), body: exchange.bodyForFingerprint() };
  }

  private warnIfShared(route: IdempotentRoute, request: PlatformRequest): void {
    if (route.scope !== undefined || request.user == null || this.warned.has(route)) return;
    this.warned.add(route);
    this.logger.warn(
      `@Idempotent() on ${route.name} has no scope, and an authenticated request (req.user) reached it: its keys ` +
        "are shared by every caller, so one caller's key would replay another caller's response. Give it a scope " +
        '(e.g. scope: (req) => req.user.id), or scope: false if sharing is intended.',
    );
  }
}

function keyOf(exchange: HttpExchange, operation: string): string {
  const parsed = parseIdempotencyKeyHeader(exchange.keyHeaderLines());
  if (parsed.ok) return parsed.key;
  if (parsed.rejection === IdempotencyKeyRejection.Missing) {
    throw new IdempotencyKeyMissingError(parsed.reason, { operation });
  }
  throw new InvalidIdempotencyKeyError(parsed.reason, { operation });
}

function bodyOf(error: unknown): unknown {
  const response = (error as { getResponse?: () => unknown }).getResponse?.();
  return response ?? { statusCode: 500, message: 'Internal server error' };
}
