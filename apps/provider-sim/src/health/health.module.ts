import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';

/** Liveness for process managers and for the test harness's start-up probe. */
@Module({ controllers: [HealthController] })
export class HealthModule {}
