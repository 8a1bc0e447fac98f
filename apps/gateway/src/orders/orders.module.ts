import { Module } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { KeyMode } from '../config/gateway-config.js';
import type { GatewaySettings } from '../config/gateway-settings.js';
import { RegeneratedPaymentKeys } from '../demonstrations/regenerated-payment-keys.js';
import { OrdersClient } from './orders.client.js';
import { OrdersController } from './orders.controller.js';
import { PAYMENT_KEYS, PropagatedPaymentKeys, paymentKeysInForce, type PaymentKeys } from './payment-keys.js';

/**
 * The orders routes, and the client of the orders service shared by the payment and invoice routes. The client
 * carries a payment's key as {@link PAYMENT_KEYS} says: the design's, or the demonstration's while a scenario's
 * `keyMode` is `regenerate`, chosen on every call.
 */
@Module({
  controllers: [OrdersController],
  providers: [
    OrdersClient,
    PropagatedPaymentKeys,
    RegeneratedPaymentKeys,
    {
      provide: PAYMENT_KEYS,
      inject: [RuntimeSettings, PropagatedPaymentKeys, RegeneratedPaymentKeys],
      useFactory: (
        settings: RuntimeSettings<GatewaySettings>,
        propagated: PaymentKeys,
        regenerated: PaymentKeys,
      ): PaymentKeys =>
        paymentKeysInForce(settings, { [KeyMode.Propagate]: propagated, [KeyMode.Regenerate]: regenerated }),
    },
  ],
  exports: [OrdersClient],
})
export class OrdersModule {}
