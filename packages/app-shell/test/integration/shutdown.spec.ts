import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Logger,
  Module,
  Res,
  type INestApplication,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import type { Redis } from 'ioredis';
import { HealthController } from '../../src/health/health.controller.js';
import { ShutdownState } from '../../src/health/shutdown-state.js';
import { REDIS_CLIENT } from '../../src/redis.js';
import { shutdown } from '../../src/shell/bootstrap.js';
import { SHELL_APP_OPTIONS, createShellHttpAdapter } from '../../src/shell/shell-http-adapter.js';
import { testShellModule } from './test-shell.js';

/** What happened, in order: the held request's answer and each close. */
const events: string[] = [];

/** A gate the test opens: the held request waits on it. */
let release: () => void = () => {};

@Controller('slow')
class SlowController {
  constructor(private readonly state: ShutdownState) {}

  @Get()
  async held(
    @Res({ passthrough: true }) res: { raw: ServerResponse },
  ): Promise<{ drainingWhileRunning: boolean }> {
    res.raw.once('finish', () => events.push(`answered ${res.raw.statusCode}`));
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    // Redis is still open for a request that was running when the signal came.
    return { drainingWhileRunning: this.state.draining };
  }
}

/** Stands for a queue (closes in onModuleDestroy) and a database (onApplicationShutdown). */
@Injectable()
class Closers implements OnModuleDestroy, OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {
    redis.once('end', () => events.push('redis closed'));
  }

  async onModuleDestroy(): Promise<void> {
    // The queue still has its Redis when it closes.
    events.push('queue closed');
  }

  async onApplicationShutdown(): Promise<void> {
    events.push('database closed');
  }
}

@Module({ controllers: [SlowController], providers: [Closers] })
class FeatureModule {}

async function startApp(redisUrl: string, drainTimeoutMs: number) {
  Logger.overrideLogger(false);
  const TestModule = testShellModule('test', FeatureModule, { redis: { url: redisUrl } });
  const app: INestApplication = await NestFactory.create(TestModule, createShellHttpAdapter(), {
    ...SHELL_APP_OPTIONS,
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = () => shutdown(app, drainTimeoutMs, new Logger('test'));
  return { app, url, stop };
}

/** Resolves once the held request reached the controller. */
async function untilHeld(): Promise<void> {
  const before = release;
  while (release === before) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('shutdown: drain, then queues, Redis, databases', () => {
  let redis: RedisHandle;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('answers the running request, turns readiness to 503 meanwhile, refuses new connections, then closes in order', async () => {
    events.length = 0;
    const { app, url, stop } = await startApp(redis.url, 10_000);
    const held = fetch(`${url}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await untilHeld();

    const stopped = stop();
    expect(app.get(ShutdownState).draining).toBe(true);
    const readiness = app.get(HealthController);
    const res = {
      statusCode: 200,
      status(code: number) {
        this.statusCode = code;
        return this;
      },
    };
    const report = await readiness.ready(res as never);
    expect([res.statusCode, report.status]).toEqual([503, 'draining']);
    await expect(fetch(`${url}/health/live`)).rejects.toThrow();

    release();
    await stopped;
    expect(await held).toEqual({ status: 200, body: { drainingWhileRunning: true } });
    expect(events).toEqual(['answered 200', 'queue closed', 'redis closed', 'database closed']);
  });

  it('bounds the drain by its timeout: a request still running then has its connection cut, and the app closes', async () => {
    events.length = 0;
    const { url, stop } = await startApp(redis.url, 200);
    const held = fetch(`${url}/slow`).then(
      (res) => `answered ${res.status}`,
      () => 'connection cut',
    );
    await untilHeld();

    await stop();
    expect(await held).toBe('connection cut');
    expect(events).toEqual(['queue closed', 'redis closed', 'database closed']);
    release();
  });
});
