import { SetMetadata, UseFilters, UseInterceptors, applyDecorators } from '@nestjs/common';
import type { IdempotentOptions, IdempotentRequest } from './interfaces/idempotent-options.interface.js';
import { IdempotencyProblemFilter } from './idempotency-problem.filter.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IDEMPOTENT_OPTIONS } from './idempotent-routes.js';

/**
 * Makes a route idempotent, or every `POST`, `PUT`, `PATCH` and `DELETE` route of a controller: it requires an
 * `Idempotency-Key` (400 `idempotency_key_missing` / `idempotency_key_invalid`), runs the handler once per key
 * (and scope), and replays the stored status, body and headers (`Location` by default) with
 * `Idempotent-Replayed: true`. Works on Express and on Fastify. Needs `IdempotencyModule.forRoot` in the app.
 * Options merge module < class < method; a route that cannot work (a secret replay header, `@Res()` without
 * passthrough, `@Sse()`) stops the app at start-up with its name.
 *
 * @typeParam Req - the request `fingerprint` and `scope` receive (`Request` of Express, `FastifyRequest`).
 *
 * @example
 * @Post('charges')
 * @Idempotent<FastifyRequest>({ operation: 'payment.charge', scope: (req) => tenantOf(req) })
 * charge(@Body() body: ChargeDto) { ... }
 */
export function Idempotent<Req = IdempotentRequest>(
  options: IdempotentOptions<Req> = {},
): ClassDecorator & MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_OPTIONS, options),
    UseInterceptors(IdempotencyInterceptor),
    UseFilters(IdempotencyProblemFilter),
  );
}
