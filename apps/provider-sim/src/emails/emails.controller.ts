import { Controller } from '@nestjs/common';
import { EffectController } from '../ledger/effect.controller.js';
import { SimulatedEffect, Simulation, type LedgerView } from '../ledger/simulated-effect.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { EMAILS, type EmailLedgerRow, type EmailReceipt } from './email.schema.js';

/** The simulated mail provider's API (`POST /v1/emails`, answering `{emailId}`) plus the ledger view and reset. */
@Controller('v1/emails')
export class EmailsController extends EffectController<EmailReceipt, LedgerView<'emails', EmailLedgerRow>> {
  constructor(simulation: Simulation, metrics: MetricsService) {
    super(new SimulatedEffect(simulation, metrics.emails, EMAILS));
  }
}
