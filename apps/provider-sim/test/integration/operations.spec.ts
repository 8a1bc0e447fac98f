import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { useProviderApp } from './provider-sim.app.js';

describe('health, metrics, request ids, unknown routes', () => {
  const provider = useProviderApp();

  it('GET /health answers ok', async () => {
    const app = await provider.start();
    const res = await request(app.getHttpServer()).get('/health');
    expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
  });

  it('echoes the caller x-request-id, or makes one', async () => {
    const app = await provider.start();
    const given = await request(app.getHttpServer()).get('/health').set('x-request-id', 'req-42');
    const made = await request(app.getHttpServer()).get('/health');
    expect(given.headers['x-request-id']).toBe('req-42');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /metrics counts requests by route and status, and charges and emails by outcome', async () => {
    const app = await provider.start();
    const server = app.getHttpServer();
    await request(server)
      .post('/v1/charges')
      .set('Idempotency-Key', 'a')
      .send({ amount: 1, currency: 'usd' });
    await request(server)
      .post('/v1/charges')
      .set('Idempotency-Key', 'a')
      .send({ amount: 1, currency: 'usd' });
    await request(server).post('/v1/emails').send({ to: 'ada@example.com', subject: 'x' });

    const res = await request(server).get('/metrics');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('http_requests_total{method="POST",route="/v1/charges",status="201"} 2');
    expect(res.text).toContain('http_requests_total{method="POST",route="/v1/emails",status="400"} 1');
    expect(res.text).toContain('provider_charges_total{outcome="created"} 1');
    expect(res.text).toContain('provider_charges_total{outcome="replayed"} 1');
    expect(res.text).toContain('provider_emails_total{outcome="rejected"} 1');
  });

  it('an unknown route is a problem+json 404', async () => {
    const app = await provider.start();
    const res = await request(app.getHttpServer()).get('/v1/refunds');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('the fault routes exist only with FAULTS_ENABLED=true', async () => {
    const off = await provider.start();
    expect((await request(off.getHttpServer()).get('/__faults')).status).toBe(404);
    await off.close();
    const on = await provider.start({ FAULTS_ENABLED: 'true' });
    expect((await request(on.getHttpServer()).get('/__faults')).status).toBe(200);
  });
});
