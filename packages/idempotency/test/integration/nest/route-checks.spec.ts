import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Controller, Module, Post, Res, Sse, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Observable } from 'rxjs';
import { MemoryIdempotencyStore } from '../../../src/memory/index.js';
import { Idempotent, IdempotencyModule, type IdempotencyModuleOptions } from '../../../src/nest/index.js';
import { PLATFORMS, startNestApp } from './nest-apps.js';

/** A route's start-up must fail with this message (Nest rejects `init`). */
async function refused(
  platform: (typeof PLATFORMS)[number],
  options: Partial<IdempotencyModuleOptions>,
  controller: Type,
) {
  const store = new MemoryIdempotencyStore();
  try {
    const app = await startNestApp(platform, { store, ...options }, [controller]);
    await app.close();
    return 'started';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await store.close?.();
  }
}

@Controller()
class PlainController {
  @Post('a')
  @Idempotent({ operation: 'plain' })
  a() {
    return { ok: true };
  }
}

@Controller()
class SecretHeaderController {
  @Post('login')
  @Idempotent({ replayHeaders: ['Location', 'Authorization'] })
  login() {
    return {};
  }
}

@Controller()
class ResponseInHandController {
  @Post('raw')
  @Idempotent()
  raw(@Res() res: { send(body: string): void }) {
    res.send('sent by hand');
  }
}

@Controller()
class EventsController {
  @Post('events')
  @Sse('events')
  @Idempotent()
  events() {
    return new Observable<{ data: string }>();
  }
}

@Controller()
class BadTtlController {
  @Post('ttl')
  @Idempotent({ ttl: '1 day' as '1d' })
  ttl() {
    return {};
  }
}

@Controller()
class LongOperationController {
  @Post('long')
  @Idempotent({ operation: 'o'.repeat(90), scope: () => 't' })
  long() {
    return {};
  }
}

describe.each(PLATFORMS)(
  '@Idempotent() routes that cannot work stop the app at start-up, on %s',
  (platform) => {
    it('a secret header in the module replayHeaders, named', async () => {
      expect(await refused(platform, { replayHeaders: ['Location', 'Set-Cookie'] }, PlainController)).toMatch(
        /replayHeaders names 'set-cookie', which is never replayed/,
      );
    });

    it('a secret header in a route replayHeaders, with the route named', async () => {
      expect(await refused(platform, {}, SecretHeaderController)).toMatch(
        /^@Idempotent\(\) on SecretHeaderController\.login: replayHeaders names 'authorization'/,
      );
    });

    it('@Res() without passthrough (a replay would never answer), named', async () => {
      expect(await refused(platform, {}, ResponseInHandController)).toMatch(
        /^@Idempotent\(\) on ResponseInHandController\.raw: with @Res\(\) or @Next\(\) the handler sends the response itself/,
      );
    });

    it('@Sse(), named', async () => {
      expect(await refused(platform, {}, EventsController)).toMatch(
        /^@Idempotent\(\) on EventsController\.events: an @Sse\(\) route streams events/,
      );
    });

    it('a ttl that is no duration, and an operation with no room for its scope', async () => {
      expect(await refused(platform, {}, BadTtlController)).toMatch(
        /^@Idempotent\(\) on BadTtlController\.ttl: .*ttl/,
      );
      expect(await refused(platform, {}, LongOperationController)).toMatch(
        /^@Idempotent\(\) on LongOperationController\.long: operation is longer than 76 characters/,
      );
    });

    it('a route that can work starts', async () => {
      expect(await refused(platform, {}, PlainController)).toBe('started');
    });
  },
);

describe('IdempotencyModule is global by default', () => {
  it("a feature module's @Idempotent() route works without importing it", async () => {
    @Module({ controllers: [PlainController] })
    class FeatureModule {}
    const store = new MemoryIdempotencyStore();
    @Module({ imports: [IdempotencyModule.forRoot({ store }), FeatureModule] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const first = await request(app.getHttpServer()).post('/a').set('Idempotency-Key', 'k1');
      const again = await request(app.getHttpServer()).post('/a').set('Idempotency-Key', 'k1');
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.headers['idempotent-replayed']).toBe('true');
    } finally {
      await app.close();
    }
  });
});
