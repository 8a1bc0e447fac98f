import { hash } from 'node:crypto';
import type { HttpServer } from '@nestjs/common';
import type { IdempotentRequest, KeyFrom } from './interfaces/idempotent-options.interface.js';
import {
  keyHeaderOf,
  nonHeaderSource,
  type IdempotencyExchange,
  type KeySource,
} from './idempotency-exchange.js';
import type { IdempotentRoute } from './idempotent-route.js';
import { captureResult, replayBody, type CapturedResponse, type StoredResponse } from './stored-response.js';

/** The header a replayed response carries. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** A request of Express (a Node `IncomingMessage`) or Fastify (a wrapper whose `raw` is one). */
export interface PlatformRequest extends IdempotentRequest {
  readonly headersDistinct?: Record<string, string[] | undefined>;
  readonly raw?: { readonly headersDistinct?: Record<string, string[] | undefined> };
}

type Headers = Record<string, string | string[]>;

/**
 * An HTTP request and its response, read and written through Nest's HTTP adapter, so the interceptor does the
 * same on Express and on Fastify (whose reply has no `setHeader`, and whose request keeps Node's in `raw`).
 */
export class HttpExchange implements IdempotencyExchange {
  constructor(
    private readonly adapter: HttpServer,
    private readonly request: PlatformRequest,
    private readonly response: object,
  ) {}

  get input(): unknown {
    return this.request;
  }

  get identity(): object {
    return this.request;
  }

  keySource(keyFrom: KeyFrom<never> | undefined): KeySource {
    const other = nonHeaderSource(keyFrom, this.request, { payload: this.request.body });
    if (other !== undefined) return other;
    const name = keyHeaderOf(keyFrom).toLowerCase();
    // Every line as received, so a repeated header can be refused.
    const distinct = this.request.headersDistinct ?? this.request.raw?.headersDistinct;
    return { from: 'header', lines: distinct?.[name] ?? this.request.headers[name] };
  }

  // The method, the path (the query is not part of what a POST does) and the parsed body; a binary body (a
  // Buffer) by its SHA-256, since its bytes are not JSON.
  defaultFingerprint(): unknown {
    const url = (this.adapter.getRequestUrl?.(this.request) as string | undefined) ?? this.request.url;
    const { body } = this.request;
    return {
      method: this.request.method,
      path: url.split('?')[0] ?? url,
      body: body instanceof Uint8Array ? { sha256: hash('sha256', body, 'hex') } : (body ?? null),
    };
  }

  user(): unknown {
    return this.request.user;
  }

  // The status Nest set before the handler ran (the route's, or the handler's own through the response).
  capture(result: unknown, route: IdempotentRoute): Promise<CapturedResponse> {
    const status = (this.response as { statusCode?: number }).statusCode ?? 200;
    return captureResult(result, status, this.headers(route.replayHeaders), route.maxStoredBytes);
  }

  storedError(error: unknown, status: number, route: IdempotentRoute): StoredResponse {
    const body = (error as { getResponse?: () => unknown }).getResponse?.();
    return {
      kind: 'error',
      status,
      headers: this.headers(route.replayHeaders),
      body: body ?? { statusCode: 500, message: 'Internal server error' },
    };
  }

  replay(stored: StoredResponse): unknown {
    this.adapter.status(this.response, stored.status);
    for (const [name, value] of Object.entries(stored.headers)) this.setHeader(name, value);
    this.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return replayBody(stored);
  }

  /** The response headers of `names` (lower-case) that are set. */
  private headers(names: readonly string[]): Headers {
    const headers: Headers = {};
    for (const name of names) {
      // Express's response and Fastify's reply both have getHeader (Nest's adapter interface has none).
      const value = (this.response as { getHeader(name: string): unknown }).getHeader(name);
      if (typeof value === 'string' || Array.isArray(value)) headers[name] = value as string | string[];
      else if (typeof value === 'number') headers[name] = String(value);
    }
    return headers;
  }

  private setHeader(name: string, value: string | string[]): void {
    this.adapter.setHeader(this.response, name, value as string);
  }
}
