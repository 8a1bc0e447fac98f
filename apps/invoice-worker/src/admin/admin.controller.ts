import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { DeliveryJournal, type DeliveryEntry } from './delivery-journal.service.js';
import { RuntimeSettings, type SettingsSnapshot } from './runtime-settings.service.js';

/**
 * Scenario controls, mounted only with `FAULTS_ENABLED=true` (like `/__faults`):
 * - `GET /__config`, `PUT /__config` (`{"enabled": false}`: the unprotected design), `DELETE /__config`;
 * - `GET /__requests` (the delivery journal), `DELETE /__requests`.
 */
@Controller()
export class AdminController {
  constructor(
    private readonly settings: RuntimeSettings,
    private readonly journal: DeliveryJournal,
  ) {}

  @Get('__config')
  config(): SettingsSnapshot {
    return this.settings.snapshot();
  }

  @Put('__config')
  @HttpCode(200)
  replace(@Body() body: unknown): SettingsSnapshot {
    return this.settings.replace(body);
  }

  @Delete('__config')
  @HttpCode(204)
  reset(): void {
    this.settings.reset();
  }

  @Get('__requests')
  requests(): { requests: DeliveryEntry[] } {
    return { requests: this.journal.list() };
  }

  @Delete('__requests')
  @HttpCode(204)
  clearRequests(): void {
    this.journal.clear();
  }
}
