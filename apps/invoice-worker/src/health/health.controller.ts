import { Controller, Get, Inject } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisUnavailableError } from '../common/worker-errors.js';
import { REDIS_CLIENT } from '../redis/redis.tokens.js';

const PING_TIMEOUT_MS = 1_000;

/** `GET /health`: 200 when Redis (the queue and the idempotency records) answers, else a 503 problem. */
@Controller('health')
export class HealthController {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  @Get()
  async check(): Promise<{ status: 'ok'; redis: 'up' }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no PONG within ${PING_TIMEOUT_MS} ms`)),
            PING_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (error) {
      throw new RedisUnavailableError({ cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ok', redis: 'up' };
  }
}
