import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ORDERS_CONFIG, type OrdersConfig } from './orders-config.js';

/** Makes the validated {@link OrdersConfig} injectable everywhere as {@link ORDERS_CONFIG}. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ORDERS_CONFIG, useValue: config }],
      exports: [ORDERS_CONFIG],
    };
  }
}
