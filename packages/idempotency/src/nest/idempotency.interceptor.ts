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
import { fingerprintOf, type FingerprintValue } from '../fingerprint.js';
import { CoordinateOutcome, type CoordinateRequest } from '../options.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { GraphqlExchange } from './graphql-exchange.js';
import { HttpExchange, type PlatformRequest } from './http-exchange.js';
import { keyOf, statusOfError, type IdempotencyExchange } from './idempotency-exchange.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { IdempotentRouteError, operationFor, type IdempotentRoute } from './idempotent-route.js';
import { IdempotentRoutes } from './idempotent-routes.js';
import { RpcExchange } from './rpc-exchange.js';
import type { StoredResponse } from './stored-response.js';

/**
 * Thrown by the action when `storeIf` says a success is not final: only a throwing action gives its reservation
 * back. Caught in `settle`, by identity, right around the call that sees it.
 */
const NOT_FINAL = Object.freeze({ reason: 'storeIf: not final' });

/**
 * Calls already inside an `@Idempotent()` interceptor: with the decorator on both a handler and its class, Nest
 * runs the interceptor twice, and the inner run would wait for the outer's claim of the same key until it timed out.
 */
const intercepted = new WeakSet<object>();

/** What one caller gets from an `@Idempotent()` handler. */
type Settled =
  | { readonly kind: 'replayed'; readonly stored: StoredResponse }
  | { readonly kind: 'answered'; readonly body: unknown }
  | { readonly kind: 'threw'; readonly error: unknown };

/**
 * Runs an `@Idempotent()` handler through the coordinator: it runs once per key (and scope), and every repeat gets
 * its answer again (over HTTP: its status, body and chosen headers, with `Idempotent-Replayed: true`). Only what
 * `storeIf` calls final is stored; anything else gives its reservation back, so a retry runs the handler again.
 * The protocol is the same for an HTTP route (Express or Fastify), a microservice handler and a GraphQL
 * mutation; an {@link IdempotencyExchange} per context says where the key comes from and how the answer goes back.
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
    const route = this.routes.of(context.getClass() as Type, context.getHandler());
    const exchange = route === undefined ? undefined : this.exchangeOf(context);
    if (route === undefined || exchange === undefined || intercepted.has(exchange.identity))
      return next.handle();
    intercepted.add(exchange.identity);
    const key = keyOf(exchange.keySource(route.keyFrom), route.operation);
    this.warnIfShared(route, exchange);
    let operation: string;
    try {
      operation = operationFor(route, exchange.input);
    } catch (error) {
      if (error instanceof IdempotentRouteError) this.logger.error(error.message);
      throw error;
    }
    const fingerprint =
      route.fingerprint === undefined ? exchange.defaultFingerprint() : route.fingerprint(exchange.input);
    const settled = await this.settle(route, exchange, next, {
      operation,
      key,
      ttlMs: route.ttlMs,
      codec: this.codec,
      fingerprint: fingerprintOf(fingerprint as FingerprintValue),
      ...(route.inFlight === undefined ? {} : { inFlight: route.inFlight }),
    }).finally(() => exchange.settle?.());
    if (settled.kind === 'threw') throw settled.error;
    return of(settled.kind === 'answered' ? settled.body : exchange.replay(settled.stored));
  }

  /**
   * Runs the handler through the coordinator and says what this caller gets: the stored answer of an earlier call,
   * or its own run's (its answer, or what it threw: the first caller's error goes to the app's filters as it was
   * thrown, even when `storeIf` made it final).
   */
  private async settle(
    route: IdempotentRoute,
    exchange: IdempotencyExchange,
    next: CallHandler,
    request: CoordinateRequest<StoredResponse>,
  ): Promise<Settled> {
    let own: Settled | undefined;
    const action = async (): Promise<StoredResponse> => {
      let result: unknown;
      exchange.beginHandler?.();
      try {
        result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      } catch (error) {
        const status = statusOfError(error);
        if (!route.storeIf(status, error)) throw error;
        own = { kind: 'threw', error };
        return exchange.storedError(error, status, route);
      }
      const captured = await exchange.capture(result, route);
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

  private exchangeOf(context: ExecutionContext): IdempotencyExchange | undefined {
    switch (context.getType<string>()) {
      case 'http': {
        const http = context.switchToHttp();
        return new HttpExchange(
          this.adapterHost.httpAdapter,
          http.getRequest<PlatformRequest>(),
          http.getResponse<object>(),
        );
      }
      case 'rpc':
        return new RpcExchange(context.switchToRpc().getData(), context.switchToRpc().getContext());
      case 'graphql':
        // @nestjs/graphql calls a resolver with (root, args, context, info).
        return new GraphqlExchange(
          context.getArgByIndex(1),
          context.getArgByIndex(2),
          context.getArgByIndex(3),
        );
      default:
        return undefined;
    }
  }

  private warnIfShared(route: IdempotentRoute, exchange: IdempotencyExchange): void {
    if (route.scope !== undefined || exchange.user() == null || this.warned.has(route)) return;
    this.warned.add(route);
    this.logger.warn(
      `@Idempotent() on ${route.name} has no scope, and an authenticated request (req.user) reached it: its keys ` +
        "are shared by every caller, so one caller's key would replay another caller's response. Give it a scope " +
        '(e.g. scope: (req) => req.user.id), or scope: false if sharing is intended.',
    );
  }
}
