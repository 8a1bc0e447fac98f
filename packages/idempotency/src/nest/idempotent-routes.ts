import { Inject, Injectable, RequestMethod, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import type { IdempotentOptions } from './interfaces/idempotent-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { IdempotentRouteError, resolveRoute, type IdempotentRoute } from './idempotent-route.js';

/** Metadata key of the {@link IdempotentOptions} that `@Idempotent()` sets on a route or a controller. */
export const IDEMPOTENT_OPTIONS = Symbol('IDEMPOTENT_OPTIONS');

// Nest's own metadata keys (@nestjs/common/constants), stable since Nest 5; not exported by every supported major's
// public entry, so named here.
const METHOD_METADATA = 'method';
const PATH_METADATA = 'path';
const SSE_METADATA = '__sse__';
const ROUTE_ARGS_METADATA = '__routeArguments__';
const RESPONSE_PASSTHROUGH_METADATA = '__responsePassthrough__';
// A microservice handler (@MessagePattern, @EventPattern) and a GraphQL resolver's kind (@nestjs/microservices'
// PATTERN_METADATA, @nestjs/graphql's RESOLVER_TYPE_METADATA).
const PATTERN_METADATA = 'microservices:pattern';
const RESOLVER_TYPE_METADATA = 'graphql:resolver_type';
// RouteParamtypes.RESPONSE and .NEXT: the handler takes the response in hand.
const RESPONSE_PARAMS = new Set(['1', '2']);

// On a class, @Idempotent() covers the handlers that change something: HTTP routes but GET, HEAD and OPTIONS (plain
// reads), every message handler, GraphQL mutations.
const UNSAFE_METHODS: ReadonlySet<unknown> = new Set([
  RequestMethod.POST,
  RequestMethod.PUT,
  RequestMethod.PATCH,
  RequestMethod.DELETE,
]);

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- a route handler of any signature
type Handler = Function;

/**
 * The `@Idempotent()` routes of the app, each with its options merged (module < class < method) and checked once:
 * all of them when the module starts, so a route that cannot work stops the app with its name instead of failing
 * (or hanging) on its first request.
 */
@Injectable()
export class IdempotentRoutes implements OnModuleInit {
  private readonly routes = new WeakMap<Type, Map<Handler, IdempotentRoute | null>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions,
  ) {}

  /** The route's merged options, or `undefined` when it is not idempotent. */
  of(controller: Type, handler: Handler): IdempotentRoute | undefined {
    let byHandler = this.routes.get(controller);
    if (byHandler === undefined) this.routes.set(controller, (byHandler = new Map()));
    let route = byHandler.get(handler);
    if (route === undefined) byHandler.set(handler, (route = this.resolve(controller, handler) ?? null));
    return route ?? undefined;
  }

  onModuleInit(): void {
    const wrappers = [...this.discovery.getControllers(), ...this.discovery.getProviders()];
    for (const { metatype, instance } of wrappers) {
      if (typeof metatype !== 'function' || instance === null || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[method];
        if (typeof handler !== 'function' || !isHandler(handler)) continue;
        const route = this.of(metatype as Type, handler);
        if (route !== undefined) assertReplayable(route, metatype as Type, method, handler);
      }
    }
  }

  private resolve(controller: Type, handler: Handler): IdempotentRoute | undefined {
    const onMethod = this.reflector.get<IdempotentOptions<never> | undefined>(IDEMPOTENT_OPTIONS, handler);
    const onClass = this.reflector.get<IdempotentOptions<never> | undefined>(IDEMPOTENT_OPTIONS, controller);
    if (onMethod === undefined && (onClass === undefined || !changesSomething(handler))) return undefined;
    return resolveRoute(`${controller.name}.${handler.name}`, this.options, onClass, onMethod);
  }
}

/** An HTTP route, a message handler or a GraphQL resolver method: what Nest runs interceptors around. */
function isHandler(handler: Handler): boolean {
  return (
    Reflect.hasMetadata(PATH_METADATA, handler) ||
    Reflect.hasMetadata(PATTERN_METADATA, handler) ||
    Reflect.hasMetadata(RESOLVER_TYPE_METADATA, handler) ||
    Reflect.hasMetadata(IDEMPOTENT_OPTIONS, handler)
  );
}

function changesSomething(handler: Handler): boolean {
  return (
    UNSAFE_METHODS.has(Reflect.getMetadata(METHOD_METADATA, handler)) ||
    Reflect.hasMetadata(PATTERN_METADATA, handler) ||
    Reflect.getMetadata(RESOLVER_TYPE_METADATA, handler) === 'Mutation'
  );
}

/** Refuses the routes whose response the interceptor never sees whole: it could neither store nor replay it. */
function assertReplayable(route: IdempotentRoute, controller: Type, method: string, handler: Handler): void {
  if (Reflect.getMetadata(SSE_METADATA, handler) === true) {
    throw new IdempotentRouteError(
      route.name,
      'an @Sse() route streams events for as long as it runs: there is no one response to store and replay',
    );
  }
  const params = Object.keys(
    (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as object | undefined) ?? {},
  );
  const takesResponse = params.some((param) => RESPONSE_PARAMS.has(param.split(':')[0] ?? ''));
  if (takesResponse && Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, method) !== true) {
    throw new IdempotentRouteError(
      route.name,
      'with @Res() or @Next() the handler sends the response itself, so there is nothing to store and a replay ' +
        'would never answer: use @Res({ passthrough: true }) and return the body',
    );
  }
}
