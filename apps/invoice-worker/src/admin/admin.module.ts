import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AdminController } from './admin.controller.js';
import { DeliveryJournal } from './delivery-journal.service.js';
import { RuntimeSettings } from './runtime-settings.service.js';

/** Paths of the scenario controls: neither counted nor faulted by fault injection. */
export const ADMIN_PATHS = ['/__config', '/__requests'] as const;

/**
 * The settings in force and the delivery journal (always provided), and their admin routes (mounted only when
 * `enabled`, i.e. `FAULTS_ENABLED=true`).
 */
@Global()
@Module({})
export class AdminModule {
  static forRoot(options: { enabled: boolean }): DynamicModule {
    return {
      module: AdminModule,
      providers: [RuntimeSettings, { provide: DeliveryJournal, useValue: new DeliveryJournal(options) }],
      exports: [RuntimeSettings, DeliveryJournal],
      controllers: options.enabled ? [AdminController] : [],
    };
  }
}
