import type { DynamicModule, ModuleMetadata, Type } from '@nestjs/common';
import type { ShellConfig } from '../config/shell-env.js';
import { AppShellModule } from './app-shell.module.js';
import type { AppShellOptions } from './app-shell.options.js';

/**
 * What an app's root module declares for a config: the shell's options (`faultsEnabled`, `metricsListener`,
 * `adminListener`, `adminToken` and the log level come from the config itself) and the app's feature modules.
 */
export type AppDeclaration<C, S extends object = never> = Omit<
  AppShellOptions<C, S>,
  'config' | 'faultsEnabled' | 'metricsListener' | 'adminListener' | 'adminToken'
> & {
  /** The app's feature modules, imported after the shell. */
  readonly features: NonNullable<ModuleMetadata['imports']>;
};

/**
 * The base class of an app's root module, as Nest's `ConfigurableModuleBuilder` gives a `ConfigurableModuleClass`:
 * `@Module({}) export class AppModule extends shellAppModule((config: OrdersConfig) => ({ ... })) {}` gets a
 * static `AppModule.forRoot(config)` that imports {@link AppShellModule} with the declared options, then the
 * features.
 */
export function shellAppModule<C extends ShellConfig, S extends object = never>(
  declare: (config: C) => AppDeclaration<C, S>,
) {
  class ShellAppModule {
    /** The app for `config`: the shell, then the features. `this` is the app's own module class. */
    static forRoot(this: Type, config: C): DynamicModule {
      const { features, ...options } = declare(config);
      const shell = AppShellModule.forRoot<C, S>({
        ...options,
        config,
        faultsEnabled: config.faultsEnabled,
        adminToken: config.adminToken,
        metricsListener: config.metricsListener,
        adminListener:
          config.adminListener === undefined
            ? undefined
            : { ...config.adminListener, serverLimits: config.serverLimits },
        logging: { level: config.logLevel, ...options.logging },
      });
      return { module: this, imports: [shell, ...features] };
    }
  }
  return ShellAppModule;
}
