/**
 * One process of the framework floor of `pnpm bench:http` (`HTTP_BENCH_FLOOR=nest`): a NestJS app on
 * `@nestjs/platform-fastify` with one controller and nothing else (no logging, validation, interceptors, guards or
 * store), so its CPU per answer is what four hops on the services' framework cost at the least. It does what
 * bare-hop.ts does, with the same call to the next hop (hop-relay.ts): the two floors differ only in the framework.
 *
 * - With `HOP_NEXT_URL`, a relay (gateway, orders, payments): sends the method, path, body (parsed by Fastify,
 *   serialised again as a service's client does) and the headers a service passes on to the next process, and
 *   answers with the next one's status and JSON body.
 * - Without it, the responder (provider-sim): 201 and the bare responder's charge-like body.
 *
 * `HOP_PORT` is the port. It answers the routes the bench calls, `POST /v1/orders` and
 * `POST /v1/orders/:id/payments`, and `GET /health` (what the bench polls before it starts the load).
 */
import 'reflect-metadata';
import { Body, Controller, Get, Headers, Module, Param, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { chargeOf, closeHopAgent, forward } from './hop-relay.js';

const port = Number(process.env['HOP_PORT']);
const nextUrl = process.env['HOP_NEXT_URL'] ? new URL(process.env['HOP_NEXT_URL']) : undefined;

/** What the handlers set on Fastify's reply (its `status`), without a type dependency on fastify itself. */
interface Reply {
  status(code: number): unknown;
}

/** A JSON body as Fastify hands it over; `undefined` when the request had none. */
type JsonBody = Record<string, unknown> | undefined;

@Controller()
class HopController {
  @Get('health')
  health(): unknown {
    return { status: 'ok' };
  }

  @Post('v1/orders')
  orders(
    @Body() body: JsonBody,
    @Headers() headers: IncomingHttpHeaders,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<unknown> {
    return answer('/v1/orders', body, headers, reply);
  }

  @Post('v1/orders/:id/payments')
  payments(
    @Param('id') id: string,
    @Body() body: JsonBody,
    @Headers() headers: IncomingHttpHeaders,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<unknown> {
    return answer(`/v1/orders/${id}/payments`, body, headers, reply);
  }
}

/**
 * The responder's charge (Nest's 201 for a POST stands), or the next hop's answer: its status set on the reply, its
 * body returned for Fastify to serialise, as the services' `relay` does.
 */
async function answer(
  path: string,
  body: JsonBody,
  headers: IncomingHttpHeaders,
  reply: Reply,
): Promise<unknown> {
  if (nextUrl === undefined) return chargeOf(body ?? {}, headers['idempotency-key']);
  const next = await forward(nextUrl, {
    method: 'POST',
    path,
    headers,
    body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
  });
  reply.status(next.status);
  return next.json;
}

@Module({ controllers: [HopController] })
class AppModule {}

const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
await app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  // The pooled sockets go too, so nothing keeps the process up once the app is closed.
  void app.close().finally(closeHopAgent);
});
