import { Body, Controller, HttpCode, HttpStatus, Post, Res, UseGuards } from '@nestjs/common';
import { CoordinateOutcome } from '@retry-safe/idempotency';
import {
  Chain,
  type ChainContext,
  type HttpReply,
  IdempotencyKey,
  JsonContentTypeGuard,
} from '@retry-safe/app-shell/http';
import { PaymentCommandSchema, type Charge, type PaymentCommand } from '@retry-safe/contracts';
import { ChainHeader } from '@retry-safe/contracts/http';
import { PaymentsService } from './payments.service.js';

/**
 * Internal: `POST /v1/payments` charges an order once per `Idempotency-Key`. 201 with the Charge; the same bytes
 * and `Idempotent-Replayed: true` for a retry of a finished payment.
 */
@Controller('v1/payments')
@UseGuards(JsonContentTypeGuard)
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(
    @IdempotencyKey() idempotencyKey: string,
    @Body({ schema: PaymentCommandSchema }) command: PaymentCommand,
    @Chain() chain: ChainContext,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<Charge> {
    const { charge, outcome } = await this.payments.charge(command, idempotencyKey, chain);
    if (outcome === CoordinateOutcome.Replayed) res.header(ChainHeader.IdempotentReplayed, 'true');
    return charge;
  }
}
