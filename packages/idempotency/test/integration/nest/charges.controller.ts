import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Injectable,
  NotFoundException,
  Post,
  Res,
  StreamableFile,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Idempotent } from '../../../src/nest/index.js';

/** What the handlers did: the effects each test counts. One per app. */
@Injectable()
export class Effects {
  charges = 0;
  failures = 0;
  hold: Promise<void> | undefined;
}

/** 1 MiB of random text and bytes: a replay must give them back byte for byte. */
export const BIG_TEXT = randomBytes(768 * 1024).toString('base64');
export const FILE_BYTES = randomBytes(300 * 1024);

// Both platforms' responses have header(name, value): Express's res.header, Fastify's reply.header.
type AnyResponse = { header(name: string, value: string): unknown };

@Controller()
export class ChargesController {
  constructor(private readonly effects: Effects) {}

  @Post('charges')
  @Idempotent({
    operation: 'nest.charge',
    inFlight: 'raise',
    scope: (req) => String(req.headers['x-tenant'] ?? 'none'),
  })
  async charge(@Body() body: { amount: number }, @Res({ passthrough: true }) res: AnyResponse) {
    if (body.amount < 0) {
      this.effects.failures += 1;
      throw new Error('negative amount');
    }
    this.effects.charges += 1;
    await this.effects.hold;
    const id = `ch_${this.effects.charges}`;
    res.header('Location', `/charges/${id}`);
    res.header('X-Not-Replayed', 'fresh');
    return { id, amount: body.amount };
  }

  @Post('refunds')
  @HttpCode(202)
  @Idempotent({
    operation: 'nest.refund',
    fingerprint: (req) => ({ amount: (req.body as { amount: number }).amount }),
  })
  refund(@Body() body: { amount: number; note?: string }) {
    this.effects.charges += 1;
    return { refunded: body.amount };
  }

  @Post('voids')
  @HttpCode(204)
  @Idempotent({ operation: 'nest.void', scope: false })
  void(): void {
    this.effects.charges += 1;
  }

  @Post('exports')
  @Idempotent({ operation: 'nest.export', scope: false })
  export() {
    this.effects.charges += 1;
    return { text: BIG_TEXT };
  }

  @Post('receipts')
  @Idempotent({ operation: 'nest.receipt', scope: false })
  receipt() {
    this.effects.charges += 1;
    return new StreamableFile(Readable.from([FILE_BYTES.subarray(0, 1000), FILE_BYTES.subarray(1000)]), {
      type: 'application/pdf',
      disposition: 'attachment; filename="receipt.pdf"',
    });
  }

  @Post('statements')
  @Idempotent({ operation: 'nest.statement', scope: false, maxStoredBytes: 64 * 1024 })
  statement() {
    this.effects.charges += 1;
    return new StreamableFile(Readable.from([FILE_BYTES]), { type: 'application/pdf' });
  }

  @Post('lookups')
  @Idempotent({ operation: 'nest.lookup', scope: false, storeIf: (status) => status < 500 })
  lookup(@Body() body: { found: boolean }) {
    this.effects.charges += 1;
    if (!body.found) throw new NotFoundException('no such charge');
    return { found: true };
  }

  // The parameters are not compared at all: a fingerprint of null is still a fingerprint, not "use the default".
  @Post('notes')
  @Idempotent({ operation: 'nest.note', scope: false, fingerprint: () => null })
  note(@Body() body: { text: string }) {
    this.effects.charges += 1;
    return { noted: body.text };
  }

  @Post('misconfigured')
  @Idempotent({ operation: 'nest.misconfigured', scope: () => undefined as unknown as string })
  misconfigured() {
    this.effects.charges += 1;
    return {};
  }
}

/** Sets `req.user` from `X-User`, as an auth guard would. */
@Injectable()
export class FakeAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: object }>();
    if (req.headers['x-user'] !== undefined) req.user = { id: req.headers['x-user'] };
    return true;
  }
}

@Controller('accounts')
@UseGuards(FakeAuthGuard)
@Idempotent({ ttl: '90s', replayHeaders: ['Location', 'X-Class'] })
export class AccountsController {
  constructor(private readonly effects: Effects) {}

  @Post()
  open(@Res({ passthrough: true }) res: AnyResponse) {
    this.effects.charges += 1;
    res.header('X-Class', String(this.effects.charges));
    return { opened: this.effects.charges };
  }

  @Post('shared')
  @Idempotent({ scope: false, ttl: 5_000 })
  shared() {
    this.effects.charges += 1;
    return { shared: this.effects.charges };
  }

  @Get()
  list() {
    return { reads: 'are not idempotent routes' };
  }
}
