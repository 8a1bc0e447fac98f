import {
  Inject,
  Module,
  Optional,
  type DynamicModule,
  type InjectionToken,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestModule,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { FaultInjector } from './fault-injector.js';
import { createFaultMiddleware } from './fault-middleware.js';

/** DI token of the resolved {@link FaultInjectionModuleOptions}. */
export const FAULT_INJECTION_OPTIONS = Symbol('FAULT_INJECTION_OPTIONS');

/** Options of {@link FaultInjectionModule}. */
export interface FaultInjectionModuleOptions {
  /** Whether faults and `/__faults` exist at all. Apps pass `FAULTS_ENABLED=true` here; off, nothing is mounted. */
  enabled: boolean;
  /**
   * The injector to use, e.g. one the app also reads elsewhere.
   * @default new FaultInjector()
   */
  injector?: FaultInjector;
  /**
   * Paths (exact) that are neither counted nor faulted; `/__faults` is always excluded.
   * @default ['/health', '/metrics']
   */
  ignorePaths?: readonly string[];
}

/** Options of {@link FaultInjectionModule.forRootAsync}. */
export interface FaultInjectionModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers passed to `useFactory`, as in any Nest factory provider. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  /** Returns the options; typically reads the app's validated config (`FAULTS_ENABLED`). */
  useFactory: (...args: never[]) => FaultInjectionModuleOptions | Promise<FaultInjectionModuleOptions>;
}

/**
 * Rule-driven faults for a NestJS (Express) app. `forRoot({ enabled: true })` mounts, for the whole app, an
 * Express-level middleware that serves `PUT/GET/DELETE /__faults`, applies the rules and counts requests by route
 * template, and provides {@link FaultInjector} globally. `forRoot({ enabled: false })` mounts nothing: `/__faults`
 * is a 404 and requests are untouched.
 */
@Module({})
export class FaultInjectionModule implements NestModule {
  constructor(
    @Inject(FAULT_INJECTION_OPTIONS) private readonly options: FaultInjectionModuleOptions,
    @Optional() @Inject(FaultInjector) private readonly injector?: FaultInjector,
  ) {}

  static forRoot(options: FaultInjectionModuleOptions): DynamicModule {
    const optionsProvider: Provider = { provide: FAULT_INJECTION_OPTIONS, useValue: options };
    if (!options.enabled) {
      return { module: FaultInjectionModule, providers: [optionsProvider] };
    }
    return {
      module: FaultInjectionModule,
      global: true,
      providers: [
        optionsProvider,
        { provide: FaultInjector, useValue: options.injector ?? new FaultInjector() },
      ],
      exports: [FaultInjector],
    };
  }

  /** Like `forRoot`, with options from a factory (config read at start-up). The injector is provided either way. */
  static forRootAsync(options: FaultInjectionModuleAsyncOptions): DynamicModule {
    return {
      module: FaultInjectionModule,
      global: true,
      imports: options.imports ?? [],
      providers: [
        { provide: FAULT_INJECTION_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory },
        {
          provide: FaultInjector,
          inject: [FAULT_INJECTION_OPTIONS],
          useFactory: (resolved: FaultInjectionModuleOptions) => resolved.injector ?? new FaultInjector(),
        },
      ],
      exports: [FaultInjector],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    if (!this.options.enabled || this.injector === undefined) {
      return;
    }
    const middleware = createFaultMiddleware(this.injector, { ignorePaths: this.options.ignorePaths });
    consumer.apply(middleware).forRoutes('*');
  }
}
