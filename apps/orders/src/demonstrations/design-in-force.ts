import type { FactoryProvider, InjectionToken, Type } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import type { OrdersSettings } from '../config/orders-settings.js';

/** What {@link designInForce} binds: a token, the design behind it, and the demonstration that may replace it. */
export interface DesignChoice<T extends object> {
  /** The token production classes inject: they know its interface, never the classes behind it. */
  readonly provide: InjectionToken;
  readonly design: Type<T>;
  readonly demonstration: Type<T>;
  /** True while the settings in force ask for the demonstration (`PUT /__config`). */
  readonly when: (settings: OrdersSettings) => boolean;
  /** The interface's methods: each call goes to the implementation the settings name when it is made. */
  readonly methods: readonly (keyof T & string)[];
}

/**
 * The one place a demonstration stands in for a design: a provider of `choice.provide` whose every call goes to
 * the demonstration while the settings in force (`RuntimeSettings.current`, switched at run time by `PUT
 * /__config`) ask for it, else to the design. Used only by modules (`*.module.ts`): a production class injects the
 * token and never imports `demonstrations/`.
 */
export function designInForce<T extends object>(choice: DesignChoice<T>): FactoryProvider<T> {
  return {
    provide: choice.provide,
    inject: [RuntimeSettings, choice.design, choice.demonstration],
    useFactory: (settings: RuntimeSettings<OrdersSettings>, design: T, demonstration: T): T => {
      const calls = choice.methods.map((method) => {
        const call = (...args: unknown[]): unknown => {
          const inForce = choice.when(settings.current) ? demonstration : design;
          return (inForce[method] as (...params: unknown[]) => unknown).apply(inForce, args);
        };
        return [method, call] as const;
      });
      return Object.fromEntries(calls) as T;
    },
  };
}
