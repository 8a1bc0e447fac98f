import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AdminController } from './admin.controller.js';
import { RequestJournal } from './request-journal.service.js';

/** Paths of the scenario controls: neither counted nor faulted by fault injection, nor journaled. */
export const ADMIN_PATHS = ['/__requests'] as const;

/** The request journal (always provided) and its admin routes (mounted only when `FAULTS_ENABLED=true`). */
@Global()
@Module({})
export class AdminModule {
  static forRoot(options: { enabled: boolean }): DynamicModule {
    return {
      module: AdminModule,
      providers: [{ provide: RequestJournal, useValue: new RequestJournal(options) }],
      exports: [RequestJournal],
      controllers: options.enabled ? [AdminController] : [],
    };
  }
}
