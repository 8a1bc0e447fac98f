import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startRedis } from '@retry-safe/testing';
import type { EncryptionKey } from '../../../src/index.js';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { suiteRedis } from '../support.js';
import { ChargesController, Effects } from './charges.controller.js';
import { PLATFORMS, startNestApp } from './nest-apps.js';

const redis = suiteRedis(() => startRedis());

const oldKey: EncryptionKey = { id: 'k2025', secret: randomBytes(32).toString('base64') };
const newKey: EncryptionKey = { id: 'k2026', secret: randomBytes(32) };

describe.each(PLATFORMS)('encryption at rest (AES-256-GCM), on %s, real Redis', (platform) => {
  const prefix = `nest-at-rest:${randomUUID()}:`;
  const apps: INestApplication[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });
  const appWith = async (keys: EncryptionKey[]) => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: prefix });
    const app = await startNestApp(platform, { store, encryption: { keys } }, [ChargesController], {
      providers: [Effects],
    });
    apps.push(app);
    return { app, store, effects: app.get(Effects) };
  };
  const charge = (app: INestApplication, key: string) =>
    request(app.getHttpServer())
      .post('/charges')
      .set('Idempotency-Key', key)
      .set('X-Tenant', 'acme')
      .send({ amount: 4242 });
  const rawRecord = async (store: RedisIdempotencyStore, key: string) => {
    const name = store.recordKey({ operation: 'nest.charge.acme', key });
    return (await redis.client.type(name)) === 'hash'
      ? JSON.stringify(await redis.client.hgetall(name))
      : String(await redis.client.get(name));
  };

  it('the stored response holds no plaintext, and is replayed; a rotated key still reads it', async () => {
    const before = await appWith([oldKey]);
    const first = await charge(before.app, 'k-secret');
    expect(first.status).toBe(201);
    const raw = await rawRecord(before.store, 'k-secret');
    expect(raw.length).toBeGreaterThan(0);
    for (const plaintext of ['4242', first.body.id as string, 'Location', '/charges/']) {
      expect(raw).not.toContain(plaintext);
    }
    // A new key in front: old records are read with the key they name, new ones are written with the new key.
    const rotated = await appWith([newKey, oldKey]);
    const replay = await charge(rotated.app, 'k-secret');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['location']).toBe(first.headers['location']);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(rotated.effects.charges).toBe(0);
    expect(before.effects.charges).toBe(1);
  });

  it('without the key that wrote it, a record is corrupt (500), and the handler does not run again', async () => {
    const writer = await appWith([oldKey]);
    expect((await charge(writer.app, 'k-lost')).status).toBe(201);
    const stranger = await appWith([newKey]);
    const res = await charge(stranger.app, 'k-lost');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 500, code: 'idempotency_record_corrupt' });
    expect(stranger.effects.charges).toBe(0);
  });
});
