import { Readable } from 'node:stream';
import { HttpException, StreamableFile } from '@nestjs/common';
import { IdempotencyUnencodableResultError } from '../errors.js';

type StoredHeaders = Record<string, string | string[]>;

/** How a body of bytes was handed to Nest, so a replay hands it over the same way (same headers, same path). */
const BytesSource = { Buffer: 'buffer', File: 'file', Stream: 'stream' } as const;
type BytesSource = (typeof BytesSource)[keyof typeof BytesSource];

/**
 * What an `@Idempotent()` route stores: enough to send the same response again. A record written before `kind`
 * existed is a `value`.
 */
export type StoredResponse =
  | {
      readonly kind?: 'value';
      readonly status: number;
      readonly headers: StoredHeaders;
      readonly body?: unknown;
    }
  | {
      readonly kind: 'bytes';
      readonly status: number;
      readonly headers: StoredHeaders;
      readonly base64: string;
      readonly source: BytesSource;
      /** A `StreamableFile`'s own headers (`type`, `disposition`). */
      readonly file?: { readonly type?: string; readonly disposition?: string };
    }
  /** A thrown `HttpException` that `storeIf` made final: `body` is its `getResponse()`. */
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly headers: StoredHeaders;
      readonly body: unknown;
    }
  /** The handler ran, but its body could not be kept (a stream over `maxStoredBytes`). */
  | {
      readonly kind: 'unreplayable';
      readonly status: number;
      readonly headers: StoredHeaders;
      readonly reason: string;
    };

/** A response about to be stored, and the body to send to this caller (a stream read for storing is spent). */
export interface CapturedResponse {
  readonly stored: StoredResponse;
  readonly body: unknown;
}

/** A result stored as it is (a JSON body, a message's reply, a GraphQL field's value), sent as it is. */
export function capturedValue(result: unknown, headers: StoredHeaders = {}, status = 200): CapturedResponse {
  return { stored: { status, headers, body: result }, body: result };
}

/**
 * Turns a handler's result into what is stored. Bytes (a Buffer, a `StreamableFile`, a `Readable`) are stored as
 * bytes up to `maxBytes`, never as the JSON of a stream object; a larger stream still reaches this caller whole.
 */
export async function captureResult(
  result: unknown,
  status: number,
  headers: StoredHeaders,
  maxBytes: number,
): Promise<CapturedResponse> {
  if (result instanceof Uint8Array) {
    const stored = {
      kind: 'bytes',
      status,
      headers,
      base64: base64Of([result]),
      source: BytesSource.Buffer,
    } as const;
    return { stored, body: result };
  }
  const file = result instanceof StreamableFile ? result : undefined;
  const stream = file?.getStream() ?? (result instanceof Readable ? result : undefined);
  if (stream === undefined) return capturedValue(result, headers, status);
  const read = await readUpTo(stream, maxBytes);
  if (read.rest !== undefined) {
    const whole = Readable.from(read.rest);
    const reason = `the streamed body is larger than maxStoredBytes (${maxBytes} bytes) or not made of bytes`;
    return {
      stored: { kind: 'unreplayable', status, headers, reason },
      body: file === undefined ? whole : new StreamableFile(whole, file.options),
    };
  }
  const fileHeaders = file === undefined ? undefined : fileHeadersOf(file);
  const stored = {
    kind: 'bytes',
    status,
    headers,
    base64: base64Of(read.chunks),
    source: file === undefined ? BytesSource.Stream : BytesSource.File,
    ...(fileHeaders === undefined ? {} : { file: fileHeaders }),
  } as const;
  return { stored, body: replayBody(stored) };
}

/**
 * The body a replay hands to Nest, which then sends it as it sent the first: the same JSON, text or bytes. A
 * stored error is thrown again as an `HttpException` of its status and response, so the app's exception filters
 * render it as they rendered the first.
 */
export function replayBody(stored: StoredResponse): unknown {
  switch (stored.kind) {
    case undefined:
    case 'value':
      return stored.body;
    case 'bytes': {
      const bytes = Buffer.from(stored.base64, 'base64');
      if (stored.source === BytesSource.Buffer) return bytes;
      if (stored.source === BytesSource.Stream) return Readable.from([bytes]);
      return new StreamableFile(bytes, { ...stored.file, length: bytes.length });
    }
    case 'error':
      throw new HttpException(stored.body as Record<string, unknown> | string, stored.status);
    case 'unreplayable':
      throw new IdempotencyUnencodableResultError(
        `The first request was carried out, but its response cannot be replayed: ${stored.reason}`,
        {},
      );
  }
}

function fileHeadersOf(file: StreamableFile): { type?: string; disposition?: string } {
  const { type, disposition } = file.getHeaders();
  return {
    ...(typeof type === 'string' ? { type } : {}),
    ...(typeof disposition === 'string' ? { disposition } : {}),
  };
}

function base64Of(chunks: readonly Uint8Array[]): string {
  return Buffer.concat(chunks).toString('base64');
}

/**
 * Reads `stream` to its end, or until it holds more than `maxBytes` or a chunk that is not bytes; then `rest`
 * yields what was read and everything after it, so the caller still gets the whole body.
 */
async function readUpTo(
  stream: Readable,
  maxBytes: number,
): Promise<{ chunks: Buffer[]; rest?: AsyncIterable<unknown> }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // The iterator by hand: `for await` with a `break` would destroy the stream this caller still needs.
  const iterator: AsyncIterator<unknown> = stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) return { chunks };
    const chunk = toBuffer(next.value);
    if (chunk === undefined || size + chunk.length > maxBytes) {
      return { chunks, rest: restOf(chunks, next.value, iterator) };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
}

async function* restOf(read: readonly Buffer[], pending: unknown, iterator: AsyncIterator<unknown>) {
  yield* read;
  yield pending;
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
}

function toBuffer(chunk: unknown): Buffer | undefined {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return chunk instanceof Uint8Array
    ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    : undefined;
}
