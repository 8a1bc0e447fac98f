import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import {
  RuntimeSettings,
  SettingsOverridesSchema,
  type SettingsOverrides,
  type SettingsSnapshot,
} from './runtime-settings.service.js';

/**
 * Scenario controls, mounted only with `FAULTS_ENABLED=true` (like `/__faults`):
 * - `GET /__config`, `PUT /__config` (replaces the overrides of the coordinator settings), `DELETE /__config`
 *   (back to the start-up settings);
 * - `GET /__requests` (the request journal), `DELETE /__requests`: the shared `RequestJournalController`.
 */
@Controller()
export class AdminController {
  constructor(private readonly settings: RuntimeSettings) {}

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
}
