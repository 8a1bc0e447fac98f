import 'reflect-metadata';
import { afterAll, beforeAll } from '@jest/globals';
import {
  Catch,
  Controller,
  Get,
  HttpCode,
  Module,
  Param,
  Post,
  Res,
  type ArgumentsHost,
  type DynamicModule,
  type ExceptionFilter,
} from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { Response } from 'express';
import { freePort } from '@retry-safe/testing';

/** What the handlers did, to count real effects. */
export const effects = {
  payments: 0,
  orderPayments: 0,
  conflicts: 0,
  /** When the last payment effect was saved, and when the last handler started. */
  savedAt: 0,
  startedAt: 0,
  reset(): void {
    this.payments = 0;
    this.orderPayments = 0;
    this.conflicts = 0;
    this.savedAt = 0;
    this.startedAt = 0;
  },
};

class ConflictError extends Error {}

const save = () => new Promise<void>((resolve) => setImmediate(resolve));

@Controller()
class TestController {
  @Post('v1/payments')
  @HttpCode(201)
  async pay(@Res({ passthrough: true }) res: Response): Promise<{ id: string }> {
    effects.startedAt = Date.now();
    await save();
    effects.payments += 1;
    effects.savedAt = Date.now();
    res.setHeader('x-handler', 'payments');
    return { id: `ch_${effects.payments}` };
  }

  @Post('v1/orders/:orderId/payments')
  @HttpCode(201)
  async orderPayment(@Param('orderId') orderId: string): Promise<{ orderId: string }> {
    await save();
    effects.orderPayments += 1;
    return { orderId };
  }

  @Post('v1/conflicts')
  async conflict(): Promise<never> {
    await save();
    effects.conflicts += 1;
    throw new ConflictError('in progress');
  }

  @Get('health')
  health(): { status: string } {
    return { status: 'ok' };
  }
}

@Catch(ConflictError)
class ConflictFilter implements ExceptionFilter {
  catch(_error: ConflictError, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(409)
      .set('retry-after', '1')
      .type('application/problem+json')
      .send(
        JSON.stringify({
          type: 'about:blank',
          title: 'Conflict',
          status: 409,
          detail: 'x',
          code: 'payment_in_progress',
        }),
      );
  }
}

export interface RunningApp {
  url: string;
  close(): Promise<void>;
}

/** Starts a real Nest app listening on a free port with the given fault module mounted. */
export async function startTestApp(faults: DynamicModule): Promise<RunningApp> {
  @Module({
    imports: [faults],
    controllers: [TestController],
    providers: [{ provide: APP_FILTER, useClass: ConflictFilter }],
  })
  class TestAppModule {}

  const app: INestApplication = await NestFactory.create(TestAppModule, { logger: false });
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** {@link startTestApp} for a whole `describe`: started in its `beforeAll`, closed in its `afterAll`. */
export function suiteApp(faults: DynamicModule): RunningApp {
  let running: RunningApp | undefined;
  beforeAll(async () => {
    running = await startTestApp(faults);
  });
  afterAll(async () => {
    await running?.close();
  });
  return {
    get url() {
      if (running === undefined) throw new Error('the suite app is started in beforeAll');
      return running.url;
    },
    close: async () => running?.close(),
  };
}
