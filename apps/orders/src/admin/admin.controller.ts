import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { RequestJournal, type JournalEntry } from './request-journal.service.js';

/**
 * Scenario controls, mounted only with `FAULTS_ENABLED=true` (like `/__faults`): `GET /__requests` (the request
 * journal) and `DELETE /__requests`. Orders has no design to switch, hence no `/__config`.
 */
@Controller()
export class AdminController {
  constructor(private readonly journal: RequestJournal) {}

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
