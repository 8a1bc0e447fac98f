import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { RequestJournal, type JournalEntry } from './request-journal.service.js';
import {
  RuntimeSettings,
  SettingsOverridesSchema,
  type SettingsOverrides,
  type SettingsSnapshot,
} from './runtime-settings.service.js';

/**
 * Scenario controls, mounted only with `FAULTS_ENABLED=true` (like `/__faults`):
 * - `GET /__config`, `PUT /__config` (replaces the overrides of `GATEWAY_KEY_MODE`), `DELETE /__config`
 *   (back to the start-up settings);
 * - `GET /__requests` (the request journal), `DELETE /__requests`.
 */
@Controller()
export class AdminController {
  constructor(
    private readonly settings: RuntimeSettings,
    private readonly journal: RequestJournal,
  ) {}

  @Get('__config')
  config(): SettingsSnapshot {
    return this.settings.snapshot();
  }

  @Put('__config')
  @HttpCode(200)
  replace(@Body({ schema: SettingsOverridesSchema }) overrides: SettingsOverrides): SettingsSnapshot {
    return this.settings.replace(overrides);
  }

  @Delete('__config')
  @HttpCode(204)
  reset(): void {
    this.settings.reset();
  }

  @Get('__requests')
  requests(): { requests: JournalEntry[] } {
    return { requests: this.journal.list() };
  }

  @Delete('__requests')
  @HttpCode(204)
  clearRequests(): void {
    this.journal.clear();
  }
}
