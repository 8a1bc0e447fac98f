import { Module } from '@nestjs/common';
import { EmailsController } from './emails.controller.js';
import { Simulation } from '../ledger/simulated-effect.js';

/** The simulated mail provider. */
@Module({ controllers: [EmailsController], providers: [Simulation] })
export class EmailsModule {}
