import { beforeEach, describe, expect, it } from '@jest/globals';
import { FaultInjectionModule, FaultInjector, type FaultRuleInput } from '../../src/index.js';
import { call } from './support/http-call.js';
import { effects, startTestApp, suiteApp, type RunningApp } from './support/test-app.js';

const PAYMENTS = '/v1/payments';

async function putRules(app: RunningApp, rules: FaultRuleInput[]) {
  const reply = await call(`${app.url}/__faults`, 'PUT', { rules });
  expect(reply.status).toBe(200);
}

describe('FaultInjectionModule enabled, on a real Nest app', () => {
  const app = suiteApp(FaultInjectionModule.forRoot({ enabled: true }));
  beforeEach(async () => {
    expect((await call(`${app.url}/__faults`, 'DELETE')).status).toBe(204);
    effects.reset();
  });

  it('after-handler drop: the caller sees a reset, the handler ran and saved its effect exactly once', async () => {
    await putRules(app, [{ method: 'POST', path: PAYMENTS, at: 'after-handler', action: 'drop', times: 1 }]);

    await expect(call(`${app.url}${PAYMENTS}`, 'POST', {})).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(effects.payments).toBe(1);

    const retry = await call(`${app.url}${PAYMENTS}`, 'POST', {});
    expect(retry).toMatchObject({ status: 201, json: { id: 'ch_2' } });
    expect(effects.payments).toBe(2);
    const state = await call(`${app.url}/__faults`, 'GET');
    expect(state.json).toEqual({
      rules: [{ method: 'POST', path: PAYMENTS, at: 'after-handler', action: 'drop', times: 1, fired: 1 }],
      requests: { 'POST /v1/payments': 2 },
    });
  });

  it('after-handler drop also applies to an error answer written by an exception filter', async () => {
    await putRules(app, [
      { method: 'POST', path: '/v1/conflicts', at: 'after-handler', action: 'drop', times: 1 },
    ]);

    await expect(call(`${app.url}/v1/conflicts`, 'POST', {})).rejects.toMatchObject({ code: 'ECONNRESET' });
    const second = await call(`${app.url}/v1/conflicts`, 'POST', {});

    expect(effects.conflicts).toBe(2);
    expect(second).toMatchObject({ status: 409, json: { code: 'payment_in_progress' } });
    expect(second.headers['retry-after']).toBe('1');
  });

  it('before-handler drop: the caller sees a reset and the handler never ran', async () => {
    await putRules(app, [{ method: 'POST', path: PAYMENTS, at: 'before-handler', action: 'drop' }]);

    await expect(call(`${app.url}${PAYMENTS}`, 'POST', {})).rejects.toMatchObject({ code: 'ECONNRESET' });
    await expect(call(`${app.url}${PAYMENTS}`, 'POST', {})).rejects.toMatchObject({ code: 'ECONNRESET' });

    expect(effects.payments).toBe(0);
    expect((await call(`${app.url}/__faults`, 'GET')).json).toMatchObject({
      rules: [{ fired: 2 }],
      requests: { 'POST /v1/payments': 2 },
    });
  });

  it('after-handler delay holds the response, not the handler', async () => {
    await putRules(app, [{ method: 'POST', path: PAYMENTS, at: 'after-handler', action: 'delay', ms: 300 }]);
    const started = Date.now();

    const response = await call(`${app.url}${PAYMENTS}`, 'POST', {});

    expect(response).toMatchObject({ status: 201, json: { id: 'ch_1' } });
    expect(response.headers['x-handler']).toBe('payments');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(effects.savedAt - started).toBeLessThan(200);
  });

  it('before-handler delay holds the request before the handler starts', async () => {
    await putRules(app, [{ method: 'POST', path: PAYMENTS, at: 'before-handler', action: 'delay', ms: 250 }]);
    const started = Date.now();

    const response = await call(`${app.url}${PAYMENTS}`, 'POST', {});

    expect(response.status).toBe(201);
    expect(effects.startedAt - started).toBeGreaterThanOrEqual(230);
  });

  it('after-handler status replaces the answer with a problem+json (the handler still ran)', async () => {
    await putRules(app, [
      {
        method: 'POST',
        path: PAYMENTS,
        at: 'after-handler',
        action: 'status',
        status: 503,
        code: 'idempotency_store_unavailable',
        retryAfter: 1,
        times: 1,
      },
    ]);

    const response = await call(`${app.url}${PAYMENTS}`, 'POST', {});

    expect(effects.payments).toBe(1);
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['x-handler']).toBeUndefined();
    expect(response.json).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'injected fault: 503 idempotency_store_unavailable',
      code: 'idempotency_store_unavailable',
    });
  });

  it('before-handler status answers the problem and the handler never runs', async () => {
    await putRules(app, [
      {
        method: '*',
        path: PAYMENTS,
        at: 'before-handler',
        action: 'status',
        status: 502,
        code: 'bad_gateway',
      },
    ]);

    const response = await call(`${app.url}${PAYMENTS}`, 'POST', {});

    expect(response).toMatchObject({ status: 502, json: { status: 502, code: 'bad_gateway' } });
    expect(effects.payments).toBe(0);
  });

  it('counts requests by route template, not raw URL, and leaves /health and /__faults out', async () => {
    await call(`${app.url}/v1/orders/o-1/payments`, 'POST', {});
    await call(`${app.url}/v1/orders/o-2/payments?x=1`, 'POST', {});
    await call(`${app.url}/health`, 'GET');
    await call(`${app.url}/__faults`, 'GET');
    await call(`${app.url}${PAYMENTS}`, 'POST', {});

    expect((await call(`${app.url}/__faults`, 'GET')).json).toEqual({
      rules: [],
      requests: { 'POST /v1/orders/:orderId/payments': 2, 'POST /v1/payments': 1 },
    });
  });

  it('matches * segments and an optional request header', async () => {
    await putRules(app, [
      {
        method: 'POST',
        path: '/v1/orders/*/payments',
        at: 'after-handler',
        action: 'drop',
        match: { header: 'idempotency-key', value: 'k1' },
      },
    ]);

    const other = await call(`${app.url}/v1/orders/o-9/payments`, 'POST', {}, { 'idempotency-key': 'k2' });
    const hit = call(`${app.url}/v1/orders/o-9/payments`, 'POST', {}, { 'idempotency-key': 'k1' });

    expect(other.status).toBe(201);
    await expect(hit).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(effects.orderPayments).toBe(2);
  });

  it('rejects a bad rule set with 400 validation_failed and keeps the rules it had', async () => {
    const good: FaultRuleInput = {
      method: 'POST',
      path: PAYMENTS,
      at: 'after-handler',
      action: 'drop',
      times: 1,
    };
    await putRules(app, [good]);

    const bad = await call(`${app.url}/__faults`, 'PUT', { rules: [{ ...good, action: 'delay' }] });
    const notAList = await call(`${app.url}/__faults`, 'PUT', { rule: good });

    for (const reply of [bad, notAList]) {
      expect(reply.status).toBe(400);
      expect(reply.headers['content-type']).toBe('application/problem+json');
      expect(reply.json).toMatchObject({ status: 400, code: 'validation_failed' });
    }
    expect((await call(`${app.url}/__faults`, 'GET')).json).toMatchObject({ rules: [{ ...good, fired: 0 }] });
  });

  it('DELETE clears rules and counters', async () => {
    await putRules(app, [{ method: 'POST', path: PAYMENTS, at: 'before-handler', action: 'drop' }]);
    await call(`${app.url}${PAYMENTS}`, 'POST', {}).catch(() => undefined);

    expect((await call(`${app.url}/__faults`, 'DELETE')).status).toBe(204);

    expect((await call(`${app.url}/__faults`, 'GET')).json).toEqual({ rules: [], requests: {} });
    expect((await call(`${app.url}${PAYMENTS}`, 'POST', {})).status).toBe(201);
  });
});

describe('FaultInjectionModule disabled', () => {
  const app = suiteApp(FaultInjectionModule.forRoot({ enabled: false }));

  it('has no /__faults routes and no effect on requests', async () => {
    effects.reset();
    const rules = [{ method: 'POST', path: PAYMENTS, at: 'before-handler', action: 'drop' }];

    expect((await call(`${app.url}/__faults`, 'PUT', { rules })).status).toBe(404);
    expect((await call(`${app.url}/__faults`, 'GET')).status).toBe(404);
    expect((await call(`${app.url}/__faults`, 'DELETE')).status).toBe(404);
    expect(await call(`${app.url}${PAYMENTS}`, 'POST', {})).toMatchObject({
      status: 201,
      json: { id: 'ch_1' },
    });
  });
});

describe('FaultInjectionModule.forRootAsync', () => {
  it('takes its options from a factory and can share an injector with the app', async () => {
    const injector = new FaultInjector();
    const app = await startTestApp(
      FaultInjectionModule.forRootAsync({ useFactory: () => ({ enabled: true, injector }) }),
    );
    try {
      injector.replaceRules({
        rules: [
          { method: 'POST', path: PAYMENTS, at: 'before-handler', action: 'status', status: 503, code: 'x' },
        ],
      });
      expect((await call(`${app.url}${PAYMENTS}`, 'POST', {})).status).toBe(503);
      expect((await call(`${app.url}/__faults`, 'GET')).json).toMatchObject({ rules: [{ fired: 1 }] });
    } finally {
      await app.close();
    }
  });

  it('mounts nothing when the factory says disabled', async () => {
    const app = await startTestApp(
      FaultInjectionModule.forRootAsync({ useFactory: async () => ({ enabled: false }) }),
    );
    try {
      expect((await call(`${app.url}/__faults`, 'GET')).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
