import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';

/** Readiness: the worker is useful only while Redis answers. */
@Module({ controllers: [HealthController] })
export class HealthModule {}
