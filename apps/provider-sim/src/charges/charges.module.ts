import { Module } from '@nestjs/common';
import { ChargesController } from './charges.controller.js';
import { Simulation } from '../ledger/simulated-effect.js';

/** The simulated payment provider. */
@Module({ controllers: [ChargesController], providers: [Simulation] })
export class ChargesModule {}
