import { Global, Module, type DynamicModule } from '@nestjs/common';
import { RequestJournal, RequestJournalController } from '@retry-safe/app-shell';

/** Paths of the scenario controls: neither counted nor faulted by fault injection, nor journaled. */
export const ADMIN_PATHS = ['/__requests'] as const;

/**
 * The request journal (always provided) and its admin routes `GET|DELETE /__requests` (mounted only when
 * `FAULTS_ENABLED=true`). Orders has no design to switch, hence no `/__config`.
 */
@Global()
@Module({})
export class AdminModule {
  static forRoot(options: { enabled: boolean }): DynamicModule {
    return {
      module: AdminModule,
      providers: [{ provide: RequestJournal, useValue: new RequestJournal(options) }],
      exports: [RequestJournal],
      controllers: options.enabled ? [RequestJournalController] : [],
    };
  }
}
