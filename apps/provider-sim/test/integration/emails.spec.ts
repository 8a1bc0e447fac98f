import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { postTo, useProviderApp } from './provider-sim.app.js';

describe('POST /v1/emails', () => {
  const provider = useProviderApp();

  const send = postTo(provider.app, '/v1/emails');

  it('sends once per key and lists what it sent', async () => {
    const app = await provider.start();

    const first = await send('inv-1', { to: 'ada@example.com', subject: 'Invoice', body: 'Hello' });
    const again = await send('inv-1', { to: 'ada@example.com', subject: 'Invoice' });

    expect(first.status).toBe(201);
    expect(first.body).toEqual({ emailId: expect.stringMatching(/^em_\d+$/) });
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await request(app.getHttpServer()).get('/v1/emails')).body).toEqual({
      calls: 2,
      emails: [
        {
          id: first.body.emailId,
          idempotencyKey: 'inv-1',
          to: 'ada@example.com',
          createdAt: expect.any(String),
        },
      ],
    });
  });

  it('refuses a key reused for another recipient (422), a missing key (400) and a bad address (400)', async () => {
    const app = await provider.start();
    await send('inv-1', { to: 'ada@example.com', subject: 'Invoice' });

    const reused = await send('inv-1', { to: 'eve@example.com', subject: 'Invoice' });
    const missing = await send(undefined, { to: 'ada@example.com', subject: 'Invoice' });
    const invalid = await send('inv-2', { to: 'not-an-address', subject: '' });

    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect([missing.status, missing.body.code]).toEqual([400, 'idempotency_key_missing']);
    expect([invalid.status, invalid.body.code]).toEqual([400, 'validation_failed']);
    expect((await request(app.getHttpServer()).get('/v1/emails')).body.emails).toHaveLength(1);
  });

  it('with PROVIDER_DEDUP=off sends on every call; DELETE resets', async () => {
    const app = await provider.start({ PROVIDER_DEDUP: 'off' });

    await send('inv-1', { to: 'ada@example.com', subject: 'Invoice' });
    await send('inv-1', { to: 'ada@example.com', subject: 'Invoice' });
    expect((await request(app.getHttpServer()).get('/v1/emails')).body.emails).toHaveLength(2);

    expect((await request(app.getHttpServer()).delete('/v1/emails')).status).toBe(204);
    expect((await request(app.getHttpServer()).get('/v1/emails')).body).toEqual({ calls: 0, emails: [] });
  });
});
