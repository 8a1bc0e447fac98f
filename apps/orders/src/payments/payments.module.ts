import { Module } from '@nestjs/common';
import { PaymentsClient } from './payments.client.js';
import { PaymentsController } from './payments.controller.js';

/** `POST /v1/orders/{orderId}/payments` -> payments. */
@Module({ controllers: [PaymentsController], providers: [PaymentsClient] })
export class PaymentsModule {}
