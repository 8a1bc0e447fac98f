import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { shellPlatform } from '@retry-safe/app-shell';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import { createTestApp } from '@retry-safe/testing/nest';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { loadGatewayConfig } from '../../src/config/gateway-config.js';
import { TENANT, TOKEN } from './gateway.app.js';

const ORDER = '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978';

/**
 * An orders service on a loopback port: it records the `Idempotency-Key` of every attempt, answers the first
 * attempt of each payment 503 (the gateway retries it) and the next 201.
 */
class RecordingOrders {
  readonly keys: string[] = [];
  readonly server: Server = createServer((req, res) => {
    this.keys.push(String(req.headers['idempotency-key']));
    req.resume();
    req.on('end', () => {
      const status = this.keys.length % 2 === 1 ? 503 : 201;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

describe('the key a payment carries to orders, chosen per call from the key mode in force', () => {
  const orders = new RecordingOrders();
  let app: INestApplication;

  beforeAll(async () => {
    await new Promise<void>((resolve) => orders.server.listen(0, '127.0.0.1', resolve));
    const config = loadGatewayConfig({
      API_TOKENS: `${TOKEN}=${TENANT}`,
      INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
      ORDERS_URL: orders.url,
      METRICS_PORT: '0',
      ADMIN_PORT: '0',
      FAULTS_ENABLED: 'true',
    });
    app = await createTestApp(AppModule.forRoot(config), shellPlatform());
  });
  afterAll(async () => {
    await app.close();
    await new Promise<void>((resolve) => orders.server.close(() => resolve()));
  });
  beforeEach(() => {
    orders.keys.length = 0;
    app.get(RuntimeSettings).reset();
  });

  const pay = (key: string) =>
    request(app.getHttpServer())
      .post(`/v1/orders/${ORDER}/payments`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Idempotency-Key', key)
      .send({ amount: 100, currency: 'EUR' });

  it("propagate (the design): the client's key on the first attempt and on the retry", async () => {
    const res = await pay('pay-1');
    expect([res.status, orders.keys]).toEqual([201, ['"pay-1"', '"pay-1"']]);
  });

  it('regenerate (the demonstration), switched on the running gateway: a fresh key per attempt', async () => {
    app.get(RuntimeSettings).replace({ keyMode: 'regenerate' });
    const res = await pay('pay-2');
    expect(res.status).toBe(201);
    expect(orders.keys).toHaveLength(2);
    expect(new Set(orders.keys).size).toBe(2);
    expect(orders.keys).not.toContain('"pay-2"');
    for (const key of orders.keys) expect(key).toMatch(/^"[0-9a-f-]{36}"$/);

    // Back to the design without a restart: the next call propagates again.
    app.get(RuntimeSettings).reset();
    orders.keys.length = 0;
    await pay('pay-3');
    expect(orders.keys).toEqual(['"pay-3"', '"pay-3"']);
  });
});
