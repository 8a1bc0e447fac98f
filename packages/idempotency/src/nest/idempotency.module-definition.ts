import { ConfigurableModuleBuilder } from '@nestjs/common';
import type {
  IdempotencyModuleExtras,
  IdempotencyModuleOptions,
} from './interfaces/idempotency-module-options.interface.js';

/** `forRoot` / `forRootAsync` (useFactory, useClass, useExisting) and `isGlobal`, as Nest builds them. */
export const {
  ConfigurableModuleClass: ConfigurableIdempotencyModule,
  MODULE_OPTIONS_TOKEN: IDEMPOTENCY_MODULE_OPTIONS,
  OPTIONS_TYPE: IDEMPOTENCY_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: IDEMPOTENCY_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<IdempotencyModuleOptions>({ moduleName: 'Idempotency' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createIdempotencyOptions')
  .setExtras<IdempotencyModuleExtras>({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal ?? true,
  }))
  .build();

/** Options of `IdempotencyModule.forRoot`. */
export type IdempotencyModuleRegisterOptions = typeof IDEMPOTENCY_OPTIONS_TYPE;
/** Options of `IdempotencyModule.forRootAsync`. */
export type IdempotencyModuleAsyncOptions = typeof IDEMPOTENCY_ASYNC_OPTIONS_TYPE;
