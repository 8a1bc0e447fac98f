import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { RuntimeSettings, type SettingsSnapshot } from './runtime-settings.js';

/**
 * `GET /__config` (the settings in force), `PUT /__config` (replaces the overrides; 400 `validation_failed` for a
 * body the app's schema refuses), `DELETE /__config` (back to the start-up settings). Mounted only with
 * `FAULTS_ENABLED=true`, and only for an app with a settings schema.
 */
@Controller()
export class RuntimeSettingsController {
  constructor(private readonly settings: RuntimeSettings) {}

  @Get('__config')
  config(): SettingsSnapshot<object> {
    return this.settings.snapshot();
  }

  @Put('__config')
  @HttpCode(200)
  replace(@Body() body: unknown): SettingsSnapshot<object> {
    return this.settings.replace(body);
  }

  @Delete('__config')
  @HttpCode(204)
  reset(): void {
    this.settings.reset();
  }
}
