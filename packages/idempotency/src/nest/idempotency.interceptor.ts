import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { lastValueFrom, of, type Observable } from 'rxjs';
import { jsonCodec } from '../codecs.js';
import { IdempotencyCoordinator } from '../coordinator.js';
import { IdempotencyKeyMissingError, InvalidIdempotencyKeyError } from '../errors.js';
import { fingerprintOf, type FingerprintValue } from '../fingerprint.js';
import { IdempotencyKeyRejection, parseIdempotencyKeyHeader } from '../key-header.js';
import { CoordinateOutcome } from '../options.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import type { IdempotentRequest, IdempotentRouteOptions } from './idempotent.options.js';

/** Metadata key of the {@link IdempotentRouteOptions} that `@Idempotent()` sets on a route. */
export const IDEMPOTENT_ROUTE = Symbol('IDEMPOTENT_ROUTE');

/** The header a replayed response carries, as the services send it. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a route stores: enough to send the same response again. */
interface StoredResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body?: unknown;
}

/** The response, structurally (Express's `Response`). */
interface IdempotentResponse {
  statusCode: number;
  status(code: number): unknown;
  getHeader(name: string): number | string | string[] | undefined;
  setHeader(name: string, value: string | string[]): unknown;
}

const codec = jsonCodec<StoredResponse>();

/**
 * Runs an `@Idempotent()` route through the coordinator: the handler runs once per key (and scope), and every
 * repeat gets its status, body and chosen headers again with `Idempotent-Replayed: true`. A handler that throws
 * stores nothing (its reservation is given back, so a retry runs it again).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly coordinator: IdempotencyCoordinator,
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const route = this.reflector.get<IdempotentRouteOptions | undefined>(
      IDEMPOTENT_ROUTE,
      context.getHandler(),
    );
    if (route === undefined) return next.handle();
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    const res = context.switchToHttp().getResponse<IdempotentResponse>();
    const key = keyOf(req, route.operation);
    const replayHeaders = route.replayHeaders ?? this.options.replayHeaders ?? ['Location'];
    const fingerprint = route.fingerprint?.(req) ?? defaultFingerprint(req);
    const { value, outcome } = await this.coordinator.coordinateWithOutcome(
      {
        operation: route.scope === undefined ? route.operation : `${route.operation}.${route.scope(req)}`,
        key,
        ttlMs: route.ttlMs ?? this.options.ttlMs ?? DAY_MS,
        codec,
        fingerprint: fingerprintOf(fingerprint as FingerprintValue),
        ...(route.inFlight === undefined ? {} : { inFlight: route.inFlight }),
      },
      async () => {
        const body: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
        return { status: res.statusCode, headers: headersOf(res, replayHeaders), body };
      },
    );
    if (outcome === CoordinateOutcome.Replayed) {
      res.status(value.status);
      for (const [name, header] of Object.entries(value.headers)) res.setHeader(name, header);
      res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    }
    return of(value.body);
  }
}

function keyOf(req: IdempotentRequest, operation: string): string {
  const lines = req.headersDistinct?.['idempotency-key'] ?? req.headers['idempotency-key'];
  const parsed = parseIdempotencyKeyHeader(lines);
  if (parsed.ok) return parsed.key;
  if (parsed.rejection === IdempotencyKeyRejection.Missing) {
    throw new IdempotencyKeyMissingError(parsed.reason, { operation });
  }
  throw new InvalidIdempotencyKeyError(parsed.reason, { operation });
}

// The method, the path (the query is not part of what a POST does) and the parsed body.
function defaultFingerprint(req: IdempotentRequest): unknown {
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  return { method: req.method, path, body: req.body ?? null };
}

function headersOf(res: IdempotentResponse, names: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = typeof value === 'number' ? String(value) : value;
  }
  return headers;
}
