import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { startRedis } from '@retry-safe/testing';
import { IdempotencyCoordinator, jsonCodec } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import {
  IDEMPOTENCY_COORDINATOR,
  IDEMPOTENCY_STORE,
  IdempotencyModule,
  type IdempotencyModuleOptions,
  type IdempotencyOptionsFactory,
} from '../../src/nest/index.js';
import { suiteRedis } from './support.js';

const redis = suiteRedis(() => startRedis());

const REDIS = Symbol('REDIS');

@Module({ providers: [{ provide: REDIS, useFactory: () => redis.client }], exports: [REDIS] })
class RedisModule {}

@Injectable()
class ChargeService {
  executions = 0;
  constructor(@Inject(IDEMPOTENCY_COORDINATOR) private readonly coordinator: IdempotencyCoordinator) {}

  charge(key: string): Promise<{ n: number }> {
    return this.coordinator.coordinate(
      { operation: 'nest.charge', key, ttlMs: 60_000, codec: jsonCodec<{ n: number }>() },
      async () => ({ n: ++this.executions }),
    );
  }
}

describe('IdempotencyModule', () => {
  it('forRootAsync builds the coordinator from injected providers; the service runs its action once per key', async () => {
    const prefix = `nest:${Date.now()}:`;
    const moduleRef = await Test.createTestingModule({
      imports: [
        IdempotencyModule.forRootAsync({
          imports: [RedisModule],
          inject: [REDIS],
          useFactory: (redisClient: Redis) => ({
            store: new RedisIdempotencyStore(redisClient, { keyPrefix: prefix }),
            coordinator: { inFlight: 'raise' },
          }),
        }),
      ],
      providers: [ChargeService],
    }).compile();
    await moduleRef.init();
    const service = moduleRef.get(ChargeService);

    expect(await service.charge('k1')).toEqual({ n: 1 });
    expect(await service.charge('k1')).toEqual({ n: 1 });
    expect(await service.charge('k2')).toEqual({ n: 2 });
    expect(service.executions).toBe(2);
    expect(moduleRef.get(IdempotencyCoordinator)).toBe(moduleRef.get(IDEMPOTENCY_COORDINATOR));
    expect(moduleRef.get(IDEMPOTENCY_STORE)).toBeInstanceOf(RedisIdempotencyStore);
    await moduleRef.close();
    // The application's Redis client is not the module's to close.
    expect(await redis.client.ping()).toBe('PONG');
  });

  it('register takes options known up front and closes the store on shutdown', async () => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: `nest2:${Date.now()}:` });
    let closed = 0;
    const close = store.close.bind(store);
    store.close = async () => {
      closed += 1;
      await close();
    };
    const moduleRef = await Test.createTestingModule({
      imports: [IdempotencyModule.forRoot({ store })],
      providers: [ChargeService],
    }).compile();
    moduleRef.enableShutdownHooks();
    await moduleRef.init();
    expect(await moduleRef.get(ChargeService).charge('k')).toEqual({ n: 1 });
    await moduleRef.close();
    expect(closed).toBe(1);
  });
});

describe('IdempotencyModule.forRootAsync with a provider class', () => {
  @Injectable()
  class IdempotencyOptionsService implements IdempotencyOptionsFactory {
    constructor(@Inject(REDIS) private readonly redisClient: Redis) {}
    createIdempotencyOptions(): IdempotencyModuleOptions {
      return { store: new RedisIdempotencyStore(this.redisClient, { keyPrefix: `nest3:${randomUUID()}:` }) };
    }
  }

  @Module({
    imports: [RedisModule],
    providers: [IdempotencyOptionsService],
    exports: [IdempotencyOptionsService],
  })
  class OptionsModule {}

  it.each([
    ['useClass', { imports: [RedisModule], useClass: IdempotencyOptionsService }],
    ['useExisting', { imports: [OptionsModule], useExisting: IdempotencyOptionsService }],
  ])('%s builds the options; the service runs its action once per key', async (_, async) => {
    const moduleRef = await Test.createTestingModule({
      imports: [IdempotencyModule.forRootAsync(async)],
      providers: [ChargeService],
    }).compile();
    await moduleRef.init();
    const service = moduleRef.get(ChargeService);
    expect([await service.charge('k'), await service.charge('k')]).toEqual([{ n: 1 }, { n: 1 }]);
    expect(service.executions).toBe(1);
    await moduleRef.close();
  });

  it('isGlobal: a module that does not import IdempotencyModule still injects the coordinator', async () => {
    @Module({ providers: [ChargeService], exports: [ChargeService] })
    class FeatureModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        IdempotencyModule.forRootAsync({
          imports: [RedisModule],
          useClass: IdempotencyOptionsService,
          isGlobal: true,
        }),
        FeatureModule,
      ],
    }).compile();
    await moduleRef.init();
    expect(await moduleRef.get(ChargeService).charge('k')).toEqual({ n: 1 });
    await moduleRef.close();
  });
});
