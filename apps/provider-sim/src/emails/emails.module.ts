import { Module } from '@nestjs/common';
import { EmailsController } from './emails.controller.js';
import { EmailsService } from './emails.service.js';

/** The simulated mail provider. */
@Module({ controllers: [EmailsController], providers: [EmailsService] })
export class EmailsModule {}
