import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallOptions } from '@retry-safe/http-client';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import type { Caller } from '../auth/caller.decorator.js';
import { GATEWAY_CONFIG, KeyMode, type GatewayConfig } from '../config/gateway-config.js';
import type { PaymentKeys } from '../orders/payment-keys.js';

/**
 * DEMONSTRATION of the unsafe design (`GATEWAY_KEY_MODE=regenerate`, or `{"keyMode": "regenerate"}` on
 * `PUT /__config`): the same client and retries as the design (network errors, timeouts, 502/503/504, backoff inside
 * the deadline and the budget), but each attempt mints a new key (`idempotencyKeyPerAttempt`), as a gateway that
 * makes up its own keys would, so downstream cannot tell a retry from a new payment and charges again.
 */
@Injectable()
export class RegeneratedPaymentKeys implements PaymentKeys {
  // The orders client's context: the lines keep the one they had when the client minted these keys itself.
  private readonly logger = new Logger('OrdersClient');

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    if (config.keyMode === KeyMode.Regenerate) {
      this.logger.warn({
        msg: 'GATEWAY_KEY_MODE=regenerate: DEMONSTRATION MODE. Every attempt to orders carries a fresh idempotency key, so a retry after a lost response charges again. Never run this in production.',
      });
    }
  }

  keyOptions(_idempotencyKey: string, context: Caller): Pick<CallOptions, 'idempotencyKeyPerAttempt'> {
    return {
      idempotencyKeyPerAttempt: (attempt) => {
        const key = randomUUID();
        this.logger.warn({
          msg: 'GATEWAY_KEY_MODE=regenerate (demonstration): fresh idempotency key for this attempt',
          requestId: context.requestId,
          attempt,
          idempotencyKey: key,
        });
        return formatIdempotencyKey(key);
      },
    };
  }
}
