import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { parseBody } from '../common/request-parsing.js';
import { RequestJournal, type JournalEntry } from './request-journal.service.js';
import {
  RuntimeSettings,
  SettingsOverridesSchema,
  type SettingsSnapshot,
} from './runtime-settings.service.js';

/**
 * Scenario controls, mounted only with `FAULTS_ENABLED=true` (like `/__faults`):
 * - `GET /__config`, `PUT /__config` (`{"dedup": "on" | "off"}`), `DELETE /__config` (back to `PROVIDER_DEDUP`);
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
  replace(@Body() body: unknown): SettingsSnapshot {
    return this.settings.replace(parseBody(SettingsOverridesSchema, body));
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
