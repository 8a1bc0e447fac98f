import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { shellPlatform } from '@retry-safe/app-shell';
import type { ServiceResponse } from '@retry-safe/http-client';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import { createTestApp } from '@retry-safe/testing/nest';
import { AppModule } from '../../src/app.module.js';
import type { Caller } from '../../src/auth/caller.decorator.js';
import { loadGatewayConfig } from '../../src/config/gateway-config.js';
import {
  OrdersClient,
  type InvoiceRequest,
  type OrderCreateRequest,
  type OrderListRequest,
  type PaymentRequest,
} from '../../src/orders/orders.client.js';

/** The demo tenant and its token, as `API_TOKENS` lists them. */
export const TENANT = 'a0000000-0000-4000-8000-00000000000a';
export const TOKEN = 'demo-token-tenant-a';

/** One call the gateway made to orders. */
export type OrdersCall =
  | {
      readonly kind: 'payment';
      readonly payment: PaymentRequest;
      readonly key: string;
      readonly caller: Caller;
    }
  | { readonly kind: 'invoice'; readonly invoice: InvoiceRequest; readonly caller: Caller }
  | {
      readonly kind: 'create';
      readonly order: OrderCreateRequest;
      readonly key: string;
      readonly caller: Caller;
    }
  | { readonly kind: 'get'; readonly orderId: string; readonly caller: Caller }
  | { readonly kind: 'list'; readonly page: OrderListRequest; readonly caller: Caller };

/** Stands for the orders client: records every call and answers what the test set. */
export class FakeOrders {
  readonly calls: OrdersCall[] = [];
  answer: ServiceResponse<unknown> = {
    ok: true,
    status: 201,
    data: { id: 'c-1' },
    headers: { 'content-type': 'application/json; charset=utf-8' },
    attempts: 1,
  };

  createPayment = (payment: PaymentRequest, key: string, caller: Caller) =>
    this.record({ kind: 'payment', payment, key, caller });
  requestInvoice = (invoice: InvoiceRequest, caller: Caller) =>
    this.record({ kind: 'invoice', invoice, caller });
  createOrder = (order: OrderCreateRequest, key: string, caller: Caller) =>
    this.record({ kind: 'create', order, key, caller });
  getOrder = (orderId: string, caller: Caller) => this.record({ kind: 'get', orderId, caller });
  listOrders = (page: OrderListRequest, caller: Caller) => this.record({ kind: 'list', page, caller });

  private async record(call: OrdersCall): Promise<ServiceResponse<unknown>> {
    this.calls.push(call);
    return this.answer;
  }
}

/** The gateway as `main.ts` builds it (without listening), its orders client replaced by `orders`. */
export function createGatewayApp(
  orders: FakeOrders,
  env: Record<string, string> = {},
): Promise<INestApplication> {
  const config = loadGatewayConfig({
    API_TOKENS: `${TOKEN}=${TENANT}`,
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    // Its own metrics and admin listeners (the gateway's default) on free ports: tests run side by side.
    METRICS_PORT: '0',
    ADMIN_PORT: '0',
    ...env,
  });
  return createTestApp(AppModule.forRoot(config), {
    overrides: [[OrdersClient, orders]],
    ...shellPlatform(),
  });
}

/** What {@link useGatewayApp} gives a describe block. */
export interface GatewayAppFixture {
  /** The fake behind the app; its calls are forgotten before each test. */
  readonly orders: FakeOrders;
  /** The app, once the block's `beforeAll` has started it. */
  app(): INestApplication;
}

/** One gateway app (orders replaced) for a describe block: started before its tests, closed after them. */
export function useGatewayApp(env: Record<string, string> = {}): GatewayAppFixture {
  const orders = new FakeOrders();
  let app: INestApplication | undefined;
  beforeAll(async () => {
    app = await createGatewayApp(orders, env);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(() => {
    orders.calls.length = 0;
  });
  return { orders, app: () => app! };
}
