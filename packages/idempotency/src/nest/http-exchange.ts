import { hash } from 'node:crypto';
import type { HttpServer } from '@nestjs/common';
import type { IdempotentRequest } from './interfaces/idempotent-options.interface.js';

/** A request of Express (a Node `IncomingMessage`) or Fastify (a wrapper whose `raw` is one). */
export interface PlatformRequest extends IdempotentRequest {
  readonly headersDistinct?: Record<string, string[] | undefined>;
  readonly raw?: { readonly headersDistinct?: Record<string, string[] | undefined> };
}

type Headers = Record<string, string | string[]>;

/**
 * One request and its response, read and written through Nest's HTTP adapter, so the interceptor does the same on
 * Express and on Fastify (whose reply has no `setHeader`, and whose request keeps Node's in `raw`).
 */
export class HttpExchange {
  constructor(
    private readonly adapter: HttpServer,
    readonly request: PlatformRequest,
    private readonly response: object,
  ) {}

  /** Every `Idempotency-Key` line as received, so a repeated header can be refused. */
  keyHeaderLines(): string | string[] | undefined {
    const distinct = this.request.headersDistinct ?? this.request.raw?.headersDistinct;
    return distinct?.['idempotency-key'] ?? this.request.headers['idempotency-key'];
  }

  /** The path as the client sent it, without the query. */
  path(): string {
    const url = (this.adapter.getRequestUrl?.(this.request) as string | undefined) ?? this.request.url;
    return url.split('?')[0] ?? url;
  }

  /** The parsed body; a binary body (a Buffer) by its SHA-256, since its bytes are not JSON. */
  bodyForFingerprint(): unknown {
    const { body } = this.request;
    if (body instanceof Uint8Array) return { sha256: hash('sha256', body, 'hex') };
    return body ?? null;
  }

  /** The status the response will be sent with (Nest sets the route's before the handler runs). */
  status(): number {
    return (this.response as { statusCode?: number }).statusCode ?? 200;
  }

  setStatus(status: number): void {
    this.adapter.status(this.response, status);
  }

  /** The response headers of `names` (lower-case) that are set. */
  headers(names: readonly string[]): Headers {
    const headers: Headers = {};
    for (const name of names) {
      // Express's response and Fastify's reply both have getHeader (Nest's adapter interface has none).
      const value = (this.response as { getHeader(name: string): unknown }).getHeader(name);
      if (typeof value === 'string' || Array.isArray(value)) headers[name] = value as string | string[];
      else if (typeof value === 'number') headers[name] = String(value);
    }
    return headers;
  }

  setHeader(name: string, value: string | string[]): void {
    this.adapter.setHeader(this.response, name, value as string);
  }

  /** The status an error would be answered with: an `HttpException`'s own, else 500. */
  statusOfError(error: unknown): number {
    const status = (error as { getStatus?: () => unknown } | null)?.getStatus?.();
    return typeof status === 'number' ? status : 500;
  }
}
