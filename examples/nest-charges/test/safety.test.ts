// What the adapter refuses at start-up and warns about, and responses it cannot replay as JSON (a stream). The
// controllers here are the test's own, beside the app's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, afterEach, describe, it } from 'node:test';
import {
  Controller,
  Injectable,
  Module,
  Post,
  StreamableFile,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type LoggerService,
} from '@nestjs/common';
import { MemoryIdempotencyStore } from '@retry-safe/idempotency/memory';
import { Idempotent, IdempotencyModule } from '@retry-safe/idempotency/nest';
import { AppModule } from '../src/app.module.js';
import {
  config,
  assertFirst,
  assertReplayOf,
  deleteRecords,
  post,
  startApp,
  startupError,
  type RunningApp,
} from './support.js';

let running: RunningApp | undefined;

afterEach(async () => {
  await running?.app.close();
  running = undefined;
});

after(deleteRecords);

/** A module of `controllers` on an IdempotencyModule of its own (memory store: nothing to close if it fails). */
function withModuleOptions(
  replayHeaders: readonly string[],
  controllers: (new (...args: never[]) => unknown)[] = [],
) {
  @Module({
    imports: [IdempotencyModule.forRoot({ store: new MemoryIdempotencyStore(), replayHeaders })],
    controllers,
  })
  class SecretsModule {}
  return SecretsModule;
}

describe('secret headers in replayHeaders', () => {
  it("are refused at start-up in the module's options, naming the header", async () => {
    const error = await startupError(() => withModuleOptions(['Location', 'Set-Cookie']));
    assert.ok(error, 'the app started with set-cookie in replayHeaders');
    assert.match(error.message, /set-cookie/i);
  });

  it("are refused at start-up in a route's options, naming the header", async () => {
    const error = await startupError(() => {
      // Declared here: a decorator that refuses the header at once fails this build, not the file's import.
      @Controller('sessions')
      class SessionsController {
        @Post()
        @Idempotent({ replayHeaders: ['Location', 'Authorization'] })
        create(): { ok: true } {
          return { ok: true };
        }
      }
      return withModuleOptions(['Location'], [SessionsController]);
    });
    assert.ok(error, 'the app started with authorization in replayHeaders');
    assert.match(error.message, /authorization/i);
  });
});

interface User {
  id: string;
}

/** Signs in whoever names themself in `X-User`, as an auth guard (Passport's) sets `req.user`. */
@Injectable()
class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, unknown>; user?: User }>();
    const id = req.headers['x-user'];
    if (typeof id === 'string') req.user = { id };
    return true;
  }
}

@Controller('accounts')
@UseGuards(SignedIn)
class AccountsController {
  notes = 0;

  @Post('notes')
  @Idempotent()
  note(): { note: number } {
    return { note: ++this.notes };
  }

  @Post('shared')
  @Idempotent({ scope: false })
  shared(): { note: number } {
    return { note: ++this.notes };
  }

  @Post('profile')
  @Idempotent<{ user: User }>({ scope: (req) => req.user.id })
  profile(): { note: number } {
    return { note: ++this.notes };
  }
}

@Module({ imports: [AppModule.forRoot(config)], controllers: [AccountsController] })
class AccountsModule {}

/** Nest's logger, keeping the warnings. */
class Warnings implements LoggerService {
  readonly seen: string[] = [];
  warn(message: unknown): void {
    this.seen.push(typeof message === 'string' ? message : JSON.stringify(message));
  }
  log(): void {}
  error(): void {}
}

describe('scope', () => {
  it('warns once per route when a signed-in user reaches a route without a scope; scope: false is quiet', async () => {
    const warnings = new Warnings();
    running = await startApp(AccountsModule, { logger: warnings });
    const as = (user: string, path: string) =>
      post(running!.url, path, { key: randomUUID(), headers: { 'x-user': user } });

    for (const user of ['ann', 'bob']) {
      assertFirst(await as(user, '/accounts/notes'), 201);
      assertFirst(await as(user, '/accounts/shared'), 201);
    }
    const aboutScope = warnings.seen.filter((warning) => /scope/i.test(warning));
    assert.equal(aboutScope.length, 1, aboutScope.join('\n'));
    assert.match(aboutScope[0]!, /AccountsController\.note\b|\/accounts\/notes/);
  });

  it("keeps one user's key to that user: the same key from another runs anew", async () => {
    running = await startApp(AccountsModule);
    const key = randomUUID();
    const as = (user: string) =>
      post(running!.url, '/accounts/profile', { key, headers: { 'x-user': user } });

    const ann = await as('ann');
    assertFirst(ann, 201);
    assertFirst(await as('bob'), 201);
    assertReplayOf(await as('ann'), ann);
    assert.equal(running.app.get(AccountsController).notes, 2);
  });
});

@Controller('receipts')
class ReceiptsController {
  printed = 0;

  @Post()
  @Idempotent()
  print(): StreamableFile {
    this.printed += 1;
    // A stream, in two chunks with a random part: equal bytes on a retry can only come from the stored record.
    const chunks = [Buffer.from('%PDF-1.7 receipt '), Buffer.from(randomUUID())];
    return new StreamableFile(Readable.from(chunks), { type: 'application/pdf' });
  }
}

@Module({ imports: [AppModule.forRoot(config)], controllers: [ReceiptsController] })
class ReceiptsModule {}

describe('a StreamableFile', () => {
  // A stream up to `maxStoredBytes` (1 MiB by default) is stored and replayed byte for byte with its content type,
  // never as JSON of the stream's internals (with the server's file path in them).
  it('is replayed byte for byte with its content type', async () => {
    running = await startApp(ReceiptsModule);
    const key = randomUUID();

    const first = await post(running.url, '/receipts', { key });
    assertFirst(first, 201);
    assert.equal(first.headers.get('content-type'), 'application/pdf');
    assert.match(first.bytes.toString(), /^%PDF-1\.7 receipt [0-9a-f-]{36}$/);

    const retry = await post(running.url, '/receipts', { key });
    assertReplayOf(retry, first);
    assert.equal(running.app.get(ReceiptsController).printed, 1);
  });
});
