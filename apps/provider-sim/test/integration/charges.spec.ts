import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { postTo, useProviderApp } from './provider-sim.app.js';

describe('POST /v1/charges', () => {
  const provider = useProviderApp();

  const charge = postTo(provider.app, '/v1/charges');

  it('charges once per key; a duplicate gets the original charge and Idempotent-Replayed', async () => {
    const app = await provider.start();

    const first = await charge('pay-1', { amount: 1250, currency: 'EUR', reference: 'order-9' });
    const again = await charge('pay-1', { amount: 1250, currency: 'EUR' });

    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^ch_\d+$/),
      amount: 1250,
      currency: 'EUR',
      status: 'succeeded',
    });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const ledger = await request(app.getHttpServer()).get('/v1/charges');
    expect(ledger.body).toEqual({
      calls: 2,
      charges: [
        {
          id: first.body.id,
          idempotencyKey: 'pay-1',
          amount: 1250,
          currency: 'EUR',
          createdAt: expect.any(String),
        },
      ],
    });
  });

  it('answers problems: 400 without a key, 422 for a reused key, 400 for an invalid body; nothing charged', async () => {
    const app = await provider.start();
    await charge('pay-1', { amount: 100, currency: 'usd' });

    const missing = await charge(undefined, { amount: 100, currency: 'usd' });
    const reused = await charge('pay-1', { amount: 101, currency: 'usd' });
    const invalid = await charge('pay-2', { amount: -5, currency: 'dollars' });

    expect(missing.status).toBe(400);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body).toEqual({
      type: 'urn:retry-safe:problem:idempotency_key_missing',
      title: 'Idempotency-Key required',
      status: 400,
      detail: 'The Idempotency-Key header is required',
      code: 'idempotency_key_missing',
    });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('validation_failed');
    expect(invalid.body.detail).toContain('amount: must be positive');
    expect(invalid.body.detail).toContain('currency: must be an ISO 4217 alpha-3 code');
    const ledger = await request(app.getHttpServer()).get('/v1/charges');
    expect(ledger.body.calls).toBe(4);
    expect(ledger.body.charges).toHaveLength(1);
  });

  it('deduplicates concurrent duplicates held by latency', async () => {
    const app = await provider.start({ PROVIDER_LATENCY_MS: '50' });

    const results = await Promise.all(
      Array.from({ length: 8 }, () => charge('pay-race', { amount: 700, currency: 'usd' })),
    );

    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect((await request(app.getHttpServer()).get('/v1/charges')).body).toMatchObject({
      calls: 8,
      charges: [{}],
    });
  });

  it('with PROVIDER_DEDUP=off charges on every call', async () => {
    const app = await provider.start({ PROVIDER_DEDUP: 'off' });

    const a = await charge('pay-1', { amount: 100, currency: 'usd' });
    const b = await charge('pay-1', { amount: 100, currency: 'usd' });

    expect(a.body.id).not.toBe(b.body.id);
    expect((await request(app.getHttpServer()).get('/v1/charges')).body.charges).toHaveLength(2);
  });

  it('DELETE /v1/charges resets the ledger', async () => {
    const app = await provider.start();
    await charge('pay-1', { amount: 100, currency: 'usd' });

    const reset = await request(app.getHttpServer()).delete('/v1/charges');

    expect(reset.status).toBe(204);
    expect((await request(app.getHttpServer()).get('/v1/charges')).body).toEqual({ calls: 0, charges: [] });
  });

  it('fault "charged but the response was lost": drop after the handler, the charge is in the ledger', async () => {
    const app = await provider.start({ FAULTS_ENABLED: 'true' });
    const rules = await request(app.getHttpServer())
      .put('/__faults')
      .send({
        rules: [{ method: 'POST', path: '/v1/charges', at: 'after-handler', action: 'drop', times: 1 }],
      });
    expect(rules.status).toBe(200);

    const lost = await charge('pay-1', { amount: 100, currency: 'usd' }).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error,
    );
    const retried = await charge('pay-1', { amount: 100, currency: 'usd' });

    expect(lost?.code).toBe('ECONNRESET');
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    const ledger = (await request(app.getHttpServer()).get('/v1/charges')).body;
    expect(ledger.calls).toBe(2);
    expect(ledger.charges).toEqual([expect.objectContaining({ id: retried.body.id })]);
  });

  it('reads the key in either wire form: "pay-1" and pay-1 are one key, stored decoded', async () => {
    const app = await provider.start();
    const quoted = await charge('"pay-1"', { amount: 100, currency: 'usd' });
    const bare = await charge('pay-1', { amount: 100, currency: 'usd' });

    expect([quoted.status, bare.status, bare.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    const ledger = (await request(app.getHttpServer()).get('/v1/charges')).body;
    expect(ledger.charges.map((c: { idempotencyKey: string }) => c.idempotencyKey)).toEqual(['pay-1']);
  });

  // Node joins repeated field lines of an unknown header with ", ": read as one value, `a` and `b` sent twice
  // became the key "a, b". The provider reads every field line and refuses the repetition.
  it('refuses a repeated Idempotency-Key header and charges nothing', async () => {
    const app = await provider.start();
    const twice = ['pay-1', 'pay-2'] as unknown as string;
    const res = await charge(undefined, { amount: 100, currency: 'usd' }).set('Idempotency-Key', twice);

    expect([res.status, res.body.code]).toEqual([400, 'idempotency_key_invalid']);
    expect((await request(app.getHttpServer()).get('/v1/charges')).body.charges).toEqual([]);
  });
});
