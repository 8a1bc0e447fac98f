import { Global, Module, type DynamicModule } from '@nestjs/common';
import { PAYMENTS_CONFIG, type PaymentsConfig } from './payments-config.js';

/** Makes the validated {@link PaymentsConfig} injectable everywhere as {@link PAYMENTS_CONFIG}. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: PAYMENTS_CONFIG, useValue: config }],
      exports: [PAYMENTS_CONFIG],
    };
  }
}
