import type { KeyFrom } from './interfaces/idempotent-options.interface.js';
import {
  keyHeaderOf,
  nonHeaderSource,
  type IdempotencyExchange,
  type KeySource,
} from './idempotency-exchange.js';
import { capturedValue, replayBody, type CapturedResponse, type StoredResponse } from './stored-response.js';

/** The HTTP request behind a GraphQL context: Apollo's `{ req }`, Mercurius' `{ reply: { request } }`. */
interface GraphqlContext {
  req?: GraphqlHttpRequest;
  request?: GraphqlHttpRequest;
  reply?: { request?: GraphqlHttpRequest };
  user?: unknown;
}

interface GraphqlHttpRequest {
  headers?: Record<string, string | string[] | undefined>;
  user?: unknown;
}

/**
 * A GraphQL field (a `@Mutation()`), read from the resolver's arguments as `@nestjs/graphql` passes them
 * (`root, args, context, info`), so the library needs no GraphQL import: its key from an argument path or the HTTP
 * header, its result stored and returned again.
 */
export class GraphqlExchange implements IdempotencyExchange {
  readonly input: { readonly args: unknown; readonly context: unknown; readonly info: { fieldName: string } };

  constructor(args: unknown, context: unknown, info: unknown) {
    this.input = { args, context, info: (info ?? { fieldName: '' }) as { fieldName: string } };
  }

  // The field's `info` is one object per field resolution, the same for every interceptor around it (`input` is
  // this exchange's own).
  get identity(): object {
    return this.input.info;
  }

  keySource(keyFrom: KeyFrom<never> | undefined): KeySource {
    const other = nonHeaderSource(keyFrom, this.input, { arg: this.input.args });
    if (other !== undefined) return other;
    const name = keyHeaderOf(keyFrom).toLowerCase();
    return { from: 'header', lines: this.httpRequest()?.headers?.[name] };
  }

  defaultFingerprint(): unknown {
    return { field: this.input.info.fieldName, args: this.input.args ?? null };
  }

  user(): unknown {
    return this.httpRequest()?.user ?? (this.input.context as GraphqlContext | undefined)?.user;
  }

  async capture(result: unknown): Promise<CapturedResponse> {
    return capturedValue(result);
  }

  storedError(error: unknown, status: number): StoredResponse {
    return {
      kind: 'error',
      status,
      headers: {},
      body: (error as { getResponse?: () => unknown }).getResponse?.() ?? null,
    };
  }

  replay(stored: StoredResponse): unknown {
    return replayBody(stored);
  }

  private httpRequest(): GraphqlHttpRequest | undefined {
    const context = this.input.context as GraphqlContext | undefined;
    return context?.req ?? context?.request ?? context?.reply?.request;
  }
}
