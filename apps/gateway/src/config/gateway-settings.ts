import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell/admin';
import { z } from 'zod';
import { KeyMode, type GatewayConfig } from './gateway-config.js';

/** What a scenario may switch on a running gateway (`PUT /__config`). */
export interface GatewaySettings {
  /** `GATEWAY_KEY_MODE`. */
  readonly keyMode: KeyMode;
}

/** Body of `PUT /__config`: `{"keyMode": "propagate" | "regenerate"}`, or `{}` for the start-up mode. */
export const GatewaySettingsSchema = z.strictObject({
  keyMode: z.enum([KeyMode.Propagate, KeyMode.Regenerate]).optional(),
});

/** The gateway's runtime settings: `GATEWAY_KEY_MODE` from start-up, switchable by a scenario. */
export function gatewaySettings(config: GatewayConfig): RuntimeSettingsDefinition<GatewaySettings> {
  return {
    schema: GatewaySettingsSchema,
    initial: { keyMode: config.keyMode },
    onReplace: (settings, _overrides, logger) => {
      if (settings.keyMode !== KeyMode.Regenerate) return;
      logger.warn({
        msg: 'GATEWAY_KEY_MODE=regenerate set by PUT /__config: DEMONSTRATION MODE. Every attempt to orders carries a fresh idempotency key.',
      });
    },
  };
}
