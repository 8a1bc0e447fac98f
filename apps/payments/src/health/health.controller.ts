import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT } from '../redis/redis.module.js';

/** What `GET /health` answers. */
export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { redis: 'up' | 'down' };
}

const PING_TIMEOUT_MS = 500;

/** `GET /health`: 200 when Redis (the idempotency store) answers a PING, 503 otherwise. */
@Controller('health')
export class HealthController {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  @Get()
  async check(@Res({ passthrough: true }) res: Response): Promise<HealthReport> {
    const redisUp = await ping(this.redis);
    if (!redisUp) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: redisUp ? 'ok' : 'unavailable', checks: { redis: redisUp ? 'up' : 'down' } };
  }
}

async function ping(redis: Redis): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([redis.ping().then((reply) => reply === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
