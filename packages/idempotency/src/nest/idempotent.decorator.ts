import { SetMetadata, UseFilters, UseInterceptors, applyDecorators } from '@nestjs/common';
import { IdempotencyProblemFilter } from './idempotency-problem.filter.js';
import { IDEMPOTENT_ROUTE, IdempotencyInterceptor } from './idempotency.interceptor.js';
import type { IdempotentRouteOptions } from './idempotent.options.js';

/**
 * Makes a route idempotent: it requires an `Idempotency-Key` (400 `idempotency_key_missing` /
 * `idempotency_key_invalid`), runs the handler once per key, and replays the stored status, body and headers
 * (`Location` by default) with `Idempotent-Replayed: true`. Needs `IdempotencyModule.forRoot` in the app.
 *
 * @example
 * @Post('charges')
 * @Idempotent({ operation: 'payment.charge' })
 * charge(@Body() body: ChargeDto) { ... }
 */
export function Idempotent(options: IdempotentRouteOptions): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, options),
    UseInterceptors(IdempotencyInterceptor),
    UseFilters(IdempotencyProblemFilter),
  );
}
