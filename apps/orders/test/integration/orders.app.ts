import { Logger, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SHELL_APP_OPTIONS, whenReady, type ChainContext } from '@retry-safe/app-shell';
import type { PaymentCommand } from '@retry-safe/contracts';
import type { ServiceResponse } from '@retry-safe/http-client';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import { AppModule } from '../../src/app.module.js';
import { loadOrdersConfig } from '../../src/config/orders-config.js';
import { PaymentsClient } from '../../src/payments/payments.client.js';

/** Stands for the payments client: records every charge and answers what the test set. */
export class FakePayments {
  readonly calls: Array<{ command: PaymentCommand; key: string; chain: ChainContext }> = [];
  answer: ServiceResponse<unknown> = { ok: true, status: 201, data: { id: 'c-1' }, headers: {}, attempts: 1 };

  async charge(command: PaymentCommand, key: string, chain: ChainContext): Promise<ServiceResponse<unknown>> {
    this.calls.push({ command, key, chain });
    return this.answer;
  }
}

/** orders as `main.ts` builds it (without listening), on a real Redis, once ready, its payments client replaced. */
export async function createOrdersApp(
  payments: FakePayments,
  env: Record<string, string>,
): Promise<INestApplication> {
  Logger.overrideLogger(false);
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(loadOrdersConfig({ INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env }))],
  })
    .overrideProvider(PaymentsClient)
    .useValue(payments)
    .compile();
  const app = moduleRef.createNestApplication({ ...SHELL_APP_OPTIONS, logger: false });
  await app.init();
  await whenReady(app);
  return app;
}
