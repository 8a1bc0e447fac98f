/** The decorator benchmark's app: one Nest app per platform, the same route with and without `@Idempotent()`. */
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, Controller, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Redis } from 'ioredis';
import { Idempotent, IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';

export const Platform = { Express: 'express', Fastify: 'fastify' } as const;
export type Platform = (typeof Platform)[keyof typeof Platform];

/** The two routes: the same handler, one bare, one behind `@Idempotent()`. */
export const Route = { Plain: '/plain', Decorated: '/decorated' } as const;
export type Route = (typeof Route)[keyof typeof Route];

interface ChargeBody {
  readonly amount: number;
  readonly currency: string;
}

/** The trivial work both routes do: an answer built from the body. */
const charge = ({ amount, currency }: ChargeBody) => ({
  id: 'ch_1042',
  amount,
  currency,
  status: 'succeeded',
});

@Controller()
class ChargesController {
  @Post(Route.Plain)
  plain(@Body() body: ChargeBody) {
    return charge(body);
  }

  @Post(Route.Decorated)
  @Idempotent({ operation: 'bench.charge' })
  decorated(@Body() body: ChargeBody) {
    return charge(body);
  }
}

export interface BenchApp {
  readonly platform: Platform;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the app on `platform`, listening on loopback, its records in `redis` under `keyPrefix`. Nest logs errors
 * only (a failing route says why on stderr). Closing it closes the app and the store (not the Redis client).
 */
export async function startBenchApp(platform: Platform, redis: Redis, keyPrefix: string): Promise<BenchApp> {
  @Module({
    imports: [IdempotencyModule.forRoot({ store: new RedisIdempotencyStore(redis, { keyPrefix }) })],
    controllers: [ChargesController],
  })
  class BenchModule {}
  const adapter = platform === Platform.Express ? new ExpressAdapter() : new FastifyAdapter();
  const app = await NestFactory.create<INestApplication>(BenchModule, adapter, { logger: ['error'] });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close();
    throw error;
  }
  const server = app.getHttpServer() as Server;
  // Longer than a whole run: the client's one keep-alive connection is never closed under it between rows.
  server.keepAliveTimeout = 600_000;
  const { port } = server.address() as AddressInfo;
  return { platform, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
