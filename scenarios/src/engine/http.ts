/**
 * The scenarios' HTTP client: plain `fetch`, so the same code runs in Jest and in the runner CLI. Every call is
 * recorded (what was sent, what came back, when) for the scenario's sequence diagram.
 */
// The services' journal clock, so the runner's own calls order against what they saw.
import { preciseNow } from '@retry-safe/contracts';

/** What came back from one call. */
export interface HttpResult {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as received. */
  readonly text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read response fields freely
  readonly body: any;
}

/** A call the scenario made, for the diagrams. */
export interface ClientCall {
  /** The service called. */
  readonly service: 'gateway' | 'payments';
  readonly method: string;
  readonly path: string;
  readonly idempotencyKey?: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  /** `x-request-id` of the answer: the id every hop of this call logged. */
  readonly requestId?: string;
  /** The problem `code` of an error answer. */
  readonly code?: string;
  readonly replayed: boolean;
}

/** Options of {@link send}. */
export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** @default 30_000 */
  readonly timeoutMs?: number;
}

/** One HTTP call; `record` receives it once answered. */
export async function send(
  url: string,
  options: SendOptions,
  record?: (call: Omit<ClientCall, 'service'>) => void,
): Promise<HttpResult> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const startedAt = preciseNow();
  const res = await fetch(url, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  const result: HttpResult = {
    status: res.status,
    headers: Object.fromEntries(
      [...res.headers.entries()].map(([name, value]) => [name.toLowerCase(), value]),
    ),
    text,
    body: parseJson(text),
  };
  if (record !== undefined) {
    const { pathname, search } = new URL(url);
    const code = typeof result.body?.code === 'string' ? (result.body.code as string) : undefined;
    record({
      method,
      path: `${pathname}${search}`,
      ...(headers['idempotency-key'] === undefined ? {} : { idempotencyKey: headers['idempotency-key'] }),
      startedAt,
      endedAt: preciseNow(),
      status: res.status,
      ...(result.headers['x-request-id'] === undefined ? {} : { requestId: result.headers['x-request-id'] }),
      ...(code === undefined ? {} : { code }),
      replayed: result.headers['idempotent-replayed'] === 'true',
    });
  }
  return result;
}

/** `send`, failing unless the answer has status `expected`; returns the parsed body. */
export async function sendExpecting<T>(url: string, options: SendOptions, expected: number): Promise<T> {
  const res = await send(url, options);
  if (res.status !== expected) {
    throw new Error(`${options.method ?? 'GET'} ${url} answered ${res.status}: ${res.text.slice(0, 500)}`);
  }
  return res.body as T;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
