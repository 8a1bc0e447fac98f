import { Injectable } from '@nestjs/common';
import type { RuntimeSettings } from '@retry-safe/app-shell/admin';
import type { CallOptions } from '@retry-safe/http-client';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import type { Caller } from '../auth/caller.decorator.js';
import type { KeyMode } from '../config/gateway-config.js';
import type { GatewaySettings } from '../config/gateway-settings.js';

/** How a payment's calls to orders carry its `Idempotency-Key`: the http-client's key options of the call. */
export interface PaymentKeys {
  keyOptions(
    idempotencyKey: string,
    context: Caller,
  ): Pick<CallOptions, 'idempotencyKey' | 'idempotencyKeyPerAttempt'>;
}

/** DI token of the {@link PaymentKeys} the orders client uses: the ones of the key mode in force. */
export const PAYMENT_KEYS = Symbol('PAYMENT_KEYS');

/**
 * The design: the client's key on the first call and on every retry, in the wire form between services (an
 * sf-string), so a key with spaces or quotes arrives as the client meant it and orders tells a retry from a new
 * payment.
 */
@Injectable()
export class PropagatedPaymentKeys implements PaymentKeys {
  keyOptions(idempotencyKey: string): Pick<CallOptions, 'idempotencyKey'> {
    return { idempotencyKey: formatIdempotencyKey(idempotencyKey) };
  }
}

/**
 * The {@link PaymentKeys} of the key mode in force, chosen on every call (a scenario switches `keyMode` on a running
 * gateway with `PUT /__config`): what the module binds to {@link PAYMENT_KEYS}, one implementation per mode.
 */
export function paymentKeysInForce(
  settings: RuntimeSettings<GatewaySettings>,
  byMode: Readonly<Record<KeyMode, PaymentKeys>>,
): PaymentKeys {
  return { keyOptions: (key, context) => byMode[settings.current.keyMode].keyOptions(key, context) };
}
