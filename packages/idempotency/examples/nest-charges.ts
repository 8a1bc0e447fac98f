import { Body, Controller, Module, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Redis } from 'ioredis';
import { Idempotent, IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';

@Controller('charges')
export class ChargesController {
  @Post()
  // Requires Idempotency-Key; replays 201, the body and Location with Idempotent-Replayed: true.
  @Idempotent({ operation: 'payment.charge', inFlight: 'raise' })
  create(@Body() body: { amount: number }, @Res({ passthrough: true }) res: Response) {
    const id = `ch_${Date.now()}`;
    res.location(`/charges/${id}`);
    return { id, amount: body.amount };
  }
}

@Module({
  imports: [
    IdempotencyModule.forRootAsync({
      useFactory: () => ({ store: new RedisIdempotencyStore(new Redis()), ttlMs: 24 * 60 * 60 * 1000 }),
      isGlobal: true,
    }),
  ],
  controllers: [ChargesController],
})
export class AppModule {}
