import { createIdempotencyKeyDecorator } from '@retry-safe/app-shell';
import { IDEMPOTENCY_KEY_MISSING_MESSAGE } from '../common/gateway-errors.js';

/**
 * The request's `Idempotency-Key`, decoded and validated; 400 `idempotency_key_missing` (with the gateway's advice
 * to clients) or `idempotency_key_invalid` otherwise.
 */
export const IdempotencyKey = createIdempotencyKeyDecorator({
  missingMessage: IDEMPOTENCY_KEY_MISSING_MESSAGE,
});
