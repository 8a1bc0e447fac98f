import { Controller, Get, HttpStatus, Inject, Res, type INestApplicationContext } from '@nestjs/common';
import type { HttpReply } from '../http/http-platform.js';
import { ShutdownState } from './shutdown-state.js';

/** One dependency readiness depends on, e.g. `redis`. */
export interface ReadinessCheck {
  /** The field of the report, e.g. `redis`. */
  readonly name: string;
  /** True while the dependency answers. */
  readonly check: () => Promise<boolean>;
}

/** DI token of the app's {@link ReadinessCheck}s (none for a service that holds no state). */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/**
 * What `GET /health` answers: `status` (`draining` from SIGTERM on), and `up` or `down` for each check (e.g.
 * `redis`).
 */
export type HealthReport = { status: 'ok' | 'unavailable' | 'draining' } & Record<string, string>;

/**
 * Liveness and readiness. `GET /health/live`: 200 while the process answers (restart it otherwise).
 * `GET /health`: readiness, 200 when every check passes, 503 otherwise (take it out of rotation), and 503
 * `draining` from the shutdown signal on, while in-flight requests finish (liveness stays 200 meanwhile).
 */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: readonly ReadinessCheck[],
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  async ready(@Res({ passthrough: true }) res: HttpReply): Promise<HealthReport> {
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => [name, await check()] as const),
    );
    const draining = this.shutdown.draining;
    const ready = !draining && results.every(([, up]) => up);
    if (!ready) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    const report: HealthReport = { status: draining ? 'draining' : ready ? 'ok' : 'unavailable' };
    for (const [name, up] of results) report[name] = up ? 'up' : 'down';
    return report;
  }
}

/**
 * Resolves once every readiness check of `app` passes, as a load balancer would wait for `GET /health` (a Redis
 * client that fails fast refuses commands until it is connected). For in-process tests and start-up scripts.
 * @throws Error naming the checks still down after `timeoutMs`.
 */
export async function whenReady(app: INestApplicationContext, timeoutMs = 10_000): Promise<void> {
  const checks = app.get<readonly ReadinessCheck[]>(READINESS_CHECKS);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const down = (await Promise.all(checks.map(async (c) => ((await c.check()) ? [] : [c.name])))).flat();
    if (down.length === 0) return;
    if (Date.now() >= deadline) throw new Error(`not ready after ${timeoutMs} ms: ${down.join(', ')} down`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
