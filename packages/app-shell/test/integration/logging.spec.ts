import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { waitFor } from '@retry-safe/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { Body, Controller, Logger, Module, Param, Post, Res, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TraceFlags, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { REDACTED, createNestLogger, type ShellLoggerOptions } from '../../src/logging/shell-logger.js';
import { LOGGING_OPTIONS } from '../../src/shell/app-shell.module.js';
import { SHELL_APP_OPTIONS, createShellHttpAdapter } from '../../src/shell/shell-http-adapter.js';
import { testShellModule } from './test-shell.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/;

/**
 * What the shell's server spans do (`traceServerRequests`) for a request carrying `traceparent`: a server span in
 * the caller's trace, active from the server's `request` event on (before any middleware); the request and the
 * response are not bound to it, so their events come in the socket's context.
 */
function serveInServerSpans(server: Server): void {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    const req = args[0] as IncomingMessage;
    const parent = event === 'request' ? TRACEPARENT.exec(String(req.headers['traceparent'] ?? '')) : null;
    if (parent === null) return emit.call(this, event, ...args);
    const span = trace.wrapSpanContext({
      traceId: parent[1]!,
      spanId: `${req.headers['x-test-span'] as string}`,
      traceFlags: TraceFlags.SAMPLED,
    });
    const active = trace.setSpan(context.active(), span);
    return context.with(active, () => emit.call(this, event, ...args));
  } as Server['emit'];
}

@Controller('things')
class ThingsController {
  private readonly logger = new Logger('Things');

  @Post(':id')
  async create(@Param('id') id: string, @Body() body: { amount: number }): Promise<{ id: string }> {
    // After body parsing and an await: the request's log context survives both.
    this.logger.log({ msg: 'creating', id, amount: body.amount });
    await sleep(5);
    this.logger.warn({
      msg: 'a line naming what it must not show',
      idempotencyKey: 'key-must-not-appear',
      headers: { authorization: 'Bearer token-must-not-appear' },
    });
    return { id };
  }

  /** Holds the request until its client leaves: the answer's `close` then comes from the socket. */
  @Post('held/:id')
  async hold(@Res({ passthrough: true }) res: { raw: ServerResponse }): Promise<object> {
    this.logger.log({ msg: 'holding' });
    await new Promise((resolve) => res.raw.once('close', resolve));
    return {};
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

const lines: string[] = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let app: INestApplication;
let url: string;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  const TestModule = testShellModule('things', ThingsModule, { logging: { level: 'info', destination } });
  app = await NestFactory.create(TestModule, createShellHttpAdapter(), {
    ...SHELL_APP_OPTIONS,
    bufferLogs: true,
  });
  serveInServerSpans(app.getHttpServer() as Server);
  // What bootstrap does.
  app.useLogger(createNestLogger(app.get<ShellLoggerOptions>(LOGGING_OPTIONS)));
  await app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
});

afterAll(async () => {
  // Nothing is in flight by now. A keep-alive connection of fetch's that the server did not count as idle when it
  // closed would hold close() for Fastify's keep-alive timeout (72 s; this app has no shell server limits): the
  // suite's teardown is bounded here as a service's shutdown is by its drain (drain.ts).
  (app.getHttpServer() as Server).closeAllConnections();
  await app.close();
  context.disable();
});

type Line = Record<string, unknown>;

/** The lines written since `from`, parsed (every one must be JSON). */
function linesSince(from: number): Line[] {
  return lines.slice(from).map((line) => JSON.parse(line) as Line);
}

/** Waits until the request's access line (written on `close`) is out. */
async function accessLine(from: number, requestId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (linesSince(from).some((line) => line['msg'] === 'request' && line['requestId'] === requestId)) return;
    await sleep(10);
  }
  throw new Error(`no access line for ${requestId}`);
}

async function post(headers: Record<string, string>): Promise<{ status: number; requestId: string }> {
  const res = await fetch(`${url}/things/t1`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer token-must-not-appear',
      'idempotency-key': 'key-must-not-appear',
      ...headers,
    },
    body: JSON.stringify({ amount: 1999 }),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id') ?? '' };
}

describe("the shell's log lines", () => {
  it('Nest start-up lines are in the same shape: level as a name, time, service, context', () => {
    const startup = linesSince(0);
    expect(startup.length).toBeGreaterThan(0);
    for (const line of startup) {
      expect(line).toMatchObject({ level: 'info', service: 'things', pid: process.pid });
      expect(typeof line['time']).toBe('string');
      expect(typeof line['msg']).toBe('string');
    }
    expect(startup.map((line) => line['context'])).toContain('RoutesResolver');
  });

  it('carry the request id on every line of a request, one access line, and no key or token', async () => {
    const from = lines.length;
    const { status, requestId } = await post({});
    expect(status).toBe(201);
    await accessLine(from, requestId);

    const written = linesSince(from);
    expect(written.map((line) => [line['level'], line['msg']])).toEqual([
      ['info', 'creating'],
      ['warn', 'a line naming what it must not show'],
      ['info', 'request'],
    ]);
    for (const line of written) expect(line['requestId']).toBe(requestId);
    // No span is active: no trace fields.
    for (const line of written) expect(line).not.toHaveProperty('trace_id');
    expect(written[0]).toMatchObject({ context: 'Things', id: 't1', amount: 1999 });
    expect(written[1]).toMatchObject({ idempotencyKey: REDACTED, headers: { authorization: REDACTED } });
    expect(written[2]).toMatchObject({ method: 'POST', route: '/things/:id', status: '201' });
    const raw = lines.slice(from).join('\n');
    expect(raw).not.toContain('key-must-not-appear');
    expect(raw).not.toContain('token-must-not-appear');
  });

  it('carry trace_id and span_id of the active span, the access line included', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';
    const from = lines.length;
    const { requestId } = await post({
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
      'x-test-span': spanId,
    });
    await accessLine(from, requestId);

    const written = linesSince(from);
    expect(written).toHaveLength(3);
    for (const line of written) {
      expect(line).toMatchObject({ requestId, trace_id: traceId, span_id: spanId, trace_flags: '01' });
    }
  });

  it("carry the trace on the access line of a request its client left (written on the socket's close)", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spanId = 'b9c7c989f97918e1';
    const from = lines.length;
    const leave = new AbortController();
    const sent = fetch(`${url}/things/held/t1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${traceId}-b7ad6b7169203331-01`,
        'x-test-span': spanId,
      },
      body: '{}',
      signal: leave.signal,
    }).catch(() => undefined);
    const holding = await waitFor('the request to be held', async () => {
      const line = linesSince(from).find((l) => l['msg'] === 'holding');
      if (line === undefined) throw new Error('not held yet');
      return line;
    });
    leave.abort();
    await sent;
    await accessLine(from, holding['requestId'] as string);

    const access = linesSince(from).find((line) => line['msg'] === 'request');
    expect(access).toMatchObject({ status: 'aborted', trace_id: traceId, span_id: spanId });
  });

  it('keep apart concurrent requests', async () => {
    const from = lines.length;
    const answers = await Promise.all([post({}), post({}), post({}), post({})]);
    await Promise.all(answers.map(({ requestId }) => accessLine(from, requestId)));
    for (const { requestId } of answers) {
      const own = linesSince(from).filter((line) => line['requestId'] === requestId);
      expect(own.map((line) => line['msg'])).toEqual([
        'creating',
        'a line naming what it must not show',
        'request',
      ]);
    }
    expect(linesSince(from).filter((line) => line['requestId'] === undefined)).toEqual([]);
  });
});
