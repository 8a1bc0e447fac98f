import { Controller } from '@nestjs/common';
import { EffectController } from '../ledger/effect.controller.js';
import { SimulatedEffect, Simulation, type LedgerView } from '../ledger/simulated-effect.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { CHARGES, type Charge, type ChargeLedgerRow } from './charge.schema.js';

/** The simulated payment provider's API (`POST /v1/charges`) plus the test-only ledger view and reset. */
@Controller('v1/charges')
export class ChargesController extends EffectController<Charge, LedgerView<'charges', ChargeLedgerRow>> {
  constructor(simulation: Simulation, metrics: MetricsService) {
    super(new SimulatedEffect(simulation, metrics.charges, CHARGES));
  }
}
