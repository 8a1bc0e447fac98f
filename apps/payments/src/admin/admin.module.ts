import { Global, Module, type DynamicModule } from '@nestjs/common';
import { RequestJournal, RequestJournalController } from '@retry-safe/app-shell';
import { AdminController } from './admin.controller.js';
import { RuntimeSettings } from './runtime-settings.service.js';

/** Paths of the scenario controls: neither counted nor faulted by fault injection, nor journaled. */
export const ADMIN_PATHS = ['/__config', '/__requests'] as const;

/**
 * The settings in force and the request journal (always provided), and their admin routes (mounted only when
 * `enabled`, i.e. `FAULTS_ENABLED=true`).
 */
@Global()
@Module({})
export class AdminModule {
  static forRoot(options: { enabled: boolean }): DynamicModule {
    return {
      module: AdminModule,
      providers: [RuntimeSettings, { provide: RequestJournal, useValue: new RequestJournal(options) }],
      exports: [RuntimeSettings, RequestJournal],
      controllers: options.enabled ? [AdminController, RequestJournalController] : [],
    };
  }
}
