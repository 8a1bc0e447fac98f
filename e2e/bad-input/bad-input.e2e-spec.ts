/**
 * Bad input (issue 5), property-based (fast-check) against the running gateway. Each generated request is valid
 * but for one part: its idempotency key, its body, its content type, its token or its order id. Requests are
 * written byte for byte on a socket (see support/raw-http.ts), so control and non-ASCII characters, repeated
 * headers and broken framing reach the server as a client in the wild would send them.
 *
 * Every answer must be a 4xx `application/problem+json` with a consistent body (never a 5xx, never a crash), and
 * nothing may happen downstream: no request reaches orders, no provider charge, no Redis key.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sendRaw, type RawResponse } from '../support/raw-http.js';
import { DEMO_TENANTS, startStack, type Stack } from '@retry-safe/scenarios';
import { ORDER_PAYMENTS_ROUTE, PAYMENTS_ROUTE, PROBLEM, healthy } from '../failures/failure-helpers.js';

/** One request: valid except for the part a category breaks, and what the gateway may answer to it. */
interface BadRequest {
  path: string;
  headers: Array<[string, string]>;
  body: string;
  /** Statuses the broken part may cause (all 4xx). */
  statuses: readonly number[];
  /** Problem codes it may cause. */
  codes: readonly string[];
}

const AUTHORIZATION: [string, string] = ['Authorization', `Bearer ${DEMO_TENANTS.a.token}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const VALID_BODY = JSON.stringify({ amount: 1999, currency: 'EUR' });
const DEMO_TOKENS: ReadonlySet<string> = new Set(Object.values(DEMO_TENANTS).map(({ token }) => token));
/** What Node's HTTP parser refuses (a control character in a header value): answered by the gateway's handler. */
const MALFORMED = 'malformed_request';

const paymentsPath = (orderId: string): string => `/v1/orders/${orderId}/payments`;
/** Characters that can appear anywhere in a bare key (no quote, backslash, colon or space). */
const keyChar = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!#$%&*+/=?@^`|'.split(''),
);
const keyText = (minLength: number, maxLength: number) => fc.string({ unit: keyChar, minLength, maxLength });
/** Control characters but CR and LF (they would end the header line) and HTAB (allowed in a field value). */
const CONTROL_CHARS = [...Array(32).keys()]
  .filter((code) => ![9, 10, 13].includes(code))
  .map((code) => String.fromCharCode(code))
  .concat('\x7f');
const controlChar = fc.constantFrom(...CONTROL_CHARS);
const hasNonAscii = (text: string): boolean => [...text].some((char) => char.charCodeAt(0) > 0x7f);
const nonAscii = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }).filter(hasNonAscii);
const sfQuote = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
const maybeQuoted = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.boolean()).map(([value, quoted]) => (quoted ? sfQuote(value) : value));

/** A request with these `Idempotency-Key` field lines (none: the header is missing) and everything else valid. */
function withKeyLines(lines: fc.Arbitrary<string[]>): fc.Arbitrary<BadRequest> {
  return fc.tuple(lines, fc.uuid()).map(([values, orderId]) => ({
    path: paymentsPath(orderId),
    headers: [
      AUTHORIZATION,
      JSON_TYPE,
      ...values.map((value): [string, string] => ['Idempotency-Key', value]),
    ],
    body: VALID_BODY,
    statuses: [400],
    codes: ['idempotency_key_missing', 'idempotency_key_invalid', MALFORMED],
  }));
}

const badKeys: fc.Arbitrary<BadRequest> = fc.oneof(
  withKeyLines(fc.constant([])),
  withKeyLines(fc.constantFrom('', ' ', '\t', '""', '" "', '"\t"').map((key) => [key])),
  // A colon anywhere, 0-1000 characters around it, quoted or not.
  withKeyLines(
    maybeQuoted(fc.tuple(keyText(0, 500), keyText(0, 500)).map(([a, b]) => `${a}:${b}`)).map((key) => [key]),
  ),
  // A control character inside the key (at the edges HTAB would be trimmed as whitespace, so it goes inside).
  withKeyLines(
    fc
      .tuple(keyText(1, 300), controlChar, keyText(1, 300), fc.boolean())
      .map(([a, ctl, b, quoted]) => [quoted ? `"${a}${ctl}${b}"` : `${a}${ctl}${b}`]),
  ),
  withKeyLines(
    fc.tuple(keyText(1, 200), fc.constant('\t'), keyText(1, 200)).map((parts) => [parts.join('')]),
  ),
  // Non-ASCII characters, sent as UTF-8 bytes.
  withKeyLines(
    maybeQuoted(fc.tuple(keyText(0, 300), nonAscii, keyText(0, 300)).map((parts) => parts.join(''))).map(
      (key) => [key],
    ),
  ),
  // Longer than 255 characters.
  withKeyLines(maybeQuoted(keyText(256, 1000)).map((key) => [key])),
  // Broken sf-strings: unclosed, a bad escape, parameters, trailing junk, outer spaces inside the quotes.
  withKeyLines(
    fc
      .tuple(keyText(1, 100), fc.integer({ min: 0, max: 4 }))
      .map(([key, kind]) => [
        [`"${key}`, `"${key}\\x"`, `"${key}";p=1`, `"${key}" ${key}`, `" ${key} "`][kind] as string,
      ]),
  ),
  // The header repeated, each value valid on its own.
  withKeyLines(fc.array(keyText(1, 40), { minLength: 2, maxLength: 3 })),
);

const amountKeyed = (amount: string, currency = '"EUR"'): string =>
  `{"amount":${amount},"currency":${currency}}`;
const json = (value: unknown): string => JSON.stringify(value);
const badAmount: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -1_000_000_000, max: 0 }).map(String),
  fc
    .double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true })
    .filter((n) => !Number.isInteger(n))
    .map(String),
  fc.integer({ min: 100_000_000, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.constantFrom('1e400', '-1e400', '99999999999999999999999999', '1e8', '1.0e100', '0.5', '-0'),
  fc.string({ maxLength: 20 }).map(json),
  fc.integer({ min: 1, max: 99_999_999 }).map((n) => json(String(n))),
  fc.constantFrom('null', 'true', 'false', '[]', '{}', '[1999]', '{"value":1999}'),
);
const badCurrency: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom('eur', 'Eur', 'EUX', 'ABC', 'XXX', 'XTS', 'EURO', 'US', '', ' EUR', 'EUR ', 'E U'),
    // Anything but three upper-case ASCII letters is never a currency code.
    fc.string({ maxLength: 12 }).filter((text) => !/^[A-Z]{3}$/.test(text)),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }).filter(hasNonAscii),
  )
  .map(json);
const nested = (depth: number, open: string, close: string, core: string): string =>
  `${open.repeat(depth)}${core}${close.repeat(depth)}`;

/** Bodies that are never a valid payment: each breaks the schema, the JSON grammar or the size limit. */
const badBodies: fc.Arbitrary<{ body: string; statuses: readonly number[]; codes: readonly string[] }> = fc
  .oneof(
    fc.constantFrom('', '{}', '{"amount":1999}', '{"currency":"EUR"}').map((body) => ({ body })),
    badAmount.map((amount) => ({ body: amountKeyed(amount) })),
    badCurrency.map((currency) => ({ body: amountKeyed('1999', currency) })),
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom('constructor', 'prototype', '__proto__', 'toString', 'tip', 'Amount'),
          fc
            .string({ minLength: 1, maxLength: 20 })
            .filter((name) => name !== 'amount' && name !== 'currency'),
        ),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([name, value]) => ({ body: `{"amount":1999,"currency":"EUR",${json(name)}:${json(value)}}` })),
    fc.constantFrom('[]', `[${VALID_BODY}]`, '[1999,"EUR"]').map((body) => ({ body })),
    fc
      .tuple(fc.integer({ min: 1, max: 6_000 }), fc.boolean(), fc.boolean())
      .map(([depth, arrays, asAmount]) => {
        const deep = arrays ? nested(depth, '[', ']', '1') : nested(depth, '{"a":', '}', '1');
        return { body: asAmount ? amountKeyed(deep) : deep };
      }),
    // Not JSON at all, cut short, or a JSON scalar (the gateway parses objects and arrays only).
    fc
      .string({ maxLength: 200 })
      .filter((text) => !isJson(text))
      .map((body) => ({ body })),
    fc.integer({ min: 1, max: VALID_BODY.length - 1 }).map((cut) => ({ body: VALID_BODY.slice(0, cut) })),
    fc
      .constantFrom('"x"', '1999', 'null', 'true', '{"amount":1999,"currency":"EUR"', "{'amount':1999}")
      .map((body) => ({ body })),
    // Over GATEWAY_BODY_LIMIT_BYTES (16384 by default).
    fc.integer({ min: 16_385, max: 40_000 }).map((size) => ({
      body: `{"amount":1999,"currency":"EUR","pad":"${'x'.repeat(size)}"}`,
    })),
  )
  .map((part) => ({
    statuses: part.body.length > 16_000 ? [400, 413] : [400],
    codes: ['validation_failed', 'payload_too_large'],
    ...part,
  }));

const badContentTypes: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  fc.constant<Array<[string, string]>>([]),
  fc
    .oneof(
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'application/json-patch+json',
        'application/vnd.api+json',
        'text/json',
        'json',
        'application',
        'application/',
        '*/*',
        'application/*',
        '',
        'application/json; charset=latin1',
        'application/json; charset=iso-8859-1',
        'application/json; charset=us-ascii',
      ),
      fc
        .tuple(fc.stringMatching(/^[a-z][a-z0-9.+-]{0,15}$/), fc.stringMatching(/^[a-z][a-z0-9.+-]{0,15}$/))
        .map(([type, subtype]) => `${type}/${subtype}`)
        .filter((type) => type !== 'application/json'),
    )
    .map((type): Array<[string, string]> => [['Content-Type', type]]),
  // A JSON body in an encoding it is not in, or in one nobody supports.
  fc
    .constantFrom('gzip', 'deflate', 'br', 'x-unknown', 'compress')
    .map((encoding): Array<[string, string]> => [JSON_TYPE, ['Content-Encoding', encoding]]),
);

const badAuthorization: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  fc.constant<Array<[string, string]>>([]),
  fc
    .oneof(
      fc
        .stringMatching(/^[A-Za-z0-9\-._~+/]{1,80}=*$/)
        .filter((token) => !DEMO_TOKENS.has(token))
        .map((token) => `Bearer ${token}`),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'bearer',
        `Basic ${Buffer.from('user:pass').toString('base64')}`,
        `Token ${DEMO_TENANTS.a.token}`,
        `Bearer ${DEMO_TENANTS.a.token}x`,
        `Bearer ${DEMO_TENANTS.a.token.slice(1)}`,
        `Bearer ${DEMO_TENANTS.a.token.toUpperCase()}`,
        `Bearer ${DEMO_TENANTS.a.token} ${DEMO_TENANTS.b.token}`,
        `Bearer "${DEMO_TENANTS.a.token}"`,
        DEMO_TENANTS.a.token,
      ),
      fc.string({ maxLength: 100 }),
      fc.tuple(controlChar, fc.string({ maxLength: 20 })).map(([ctl, rest]) => `Bearer ${rest}${ctl}x`),
    )
    .map((value): Array<[string, string]> => [['Authorization', value]]),
);

const badOrderIds: fc.Arbitrary<string> = fc.oneof(
  fc
    .string({ maxLength: 60 })
    .filter((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)),
  fc.uuid().map((id) => `${id}x`),
  fc.uuid().map((id) => id.replaceAll('-', '')),
  fc.constantFrom('order-42', '00000000-0000-0000-0000-00000000000g', '%00', '..'),
);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Every answer: a 4xx this request may cause, as problem+json with a consistent body; throws with the answer. */
function checkAnswer(res: RawResponse, request: BadRequest): void {
  const failures: string[] = [];
  if (!request.statuses.includes(res.status))
    failures.push(`status ${res.status}, expected ${request.statuses.join('/')}`);
  if (!PROBLEM.test(res.headers['content-type'] ?? '')) failures.push('not application/problem+json');
  let problem: Record<string, unknown> = {};
  try {
    problem = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    failures.push('the body is not JSON');
  }
  const code = problem['code'];
  if (typeof code !== 'string' || !request.codes.includes(code)) {
    failures.push(`code ${String(code)}, expected one of ${request.codes.join(', ')}`);
  }
  if (problem['status'] !== res.status) failures.push("the body's status is not the response's");
  if (problem['type'] !== `urn:retry-safe:problem:${String(code)}`) failures.push('type does not match code');
  if (typeof problem['title'] !== 'string' || typeof problem['detail'] !== 'string')
    failures.push('no title/detail');
  if (failures.length > 0) {
    throw new Error(
      `${failures.join('; ')}\n  answer: ${res.status} ${res.headers['content-type']} ${res.body.slice(0, 300)}`,
    );
  }
}

describe('bad input: property-based requests to the running gateway', () => {
  let stack: Stack;
  let keysBefore: string[];

  beforeAll(async () => {
    stack = await startStack();
    keysBefore = await stack.redisKeys('');
  });
  afterAll(async () => {
    await stack?.close();
  });
  beforeEach(async () => {
    await stack.reset();
  });

  /** Sends `numRuns` generated requests and checks every answer, then that none of them had an effect. */
  async function check(requests: fc.Arbitrary<BadRequest>, numRuns: number): Promise<void> {
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        checkAnswer(await sendRaw(stack.urls.gateway, request), request);
      }),
      { numRuns },
    );
    // Refused at the edge: nothing reached orders or payments, nothing was charged, Redis is as it was.
    expect((await stack.faultCounts('orders'))[ORDER_PAYMENTS_ROUTE]).toBeUndefined();
    expect((await stack.faultCounts('payments'))[PAYMENTS_ROUTE]).toBeUndefined();
    expect(await stack.providerCharges()).toEqual({ calls: 0, charges: [] });
    expect(await stack.redisKeys('')).toEqual(keysBefore);
    await healthy(stack, 'gateway');
  }

  it('random keys (empty, colons, control and non-ASCII characters, 0-1000 long, quoted or not, repeated): 400', async () => {
    await check(badKeys, 80);
  });

  it('random bodies (missing fields, bad amounts and currencies, arrays, deep nesting, invalid JSON, oversized): 400/413', async () => {
    await check(
      fc.tuple(badBodies, fc.uuid(), fc.uuid()).map(([bad, orderId, key]) => ({
        path: paymentsPath(orderId),
        headers: [AUTHORIZATION, JSON_TYPE, ['Idempotency-Key', key]],
        ...bad,
      })),
      90,
    );
  });

  it('wrong content types and encodings: 415/400', async () => {
    await check(
      fc.tuple(badContentTypes, fc.uuid(), fc.uuid()).map(([headers, orderId, key]) => ({
        path: paymentsPath(orderId),
        headers: [AUTHORIZATION, ...headers, ['Idempotency-Key', key]],
        body: VALID_BODY,
        statuses: [400, 415],
        codes: ['unsupported_media_type', 'validation_failed'],
      })),
      40,
    );
  });

  it('random tokens: 401 (400 when the header is not even valid HTTP)', async () => {
    await check(
      fc.tuple(badAuthorization, fc.uuid(), fc.uuid()).map(([headers, orderId, key]) => ({
        path: paymentsPath(orderId),
        headers: [...headers, JSON_TYPE, ['Idempotency-Key', key]],
        body: VALID_BODY,
        statuses: [401, 400],
        codes: ['unauthorized', MALFORMED],
      })),
      40,
    );
  });

  it('random order ids in the path: 400/404', async () => {
    await check(
      fc.tuple(badOrderIds, fc.uuid()).map(([orderId, key]) => ({
        path: paymentsPath(encodeURIComponent(orderId)),
        headers: [AUTHORIZATION, JSON_TYPE, ['Idempotency-Key', key]],
        body: VALID_BODY,
        statuses: [400, 404],
        codes: ['validation_failed', 'not_found'],
      })),
      30,
    );
  });
});
