import {
  configLoader,
  envPort,
  shellEnv,
  type ConfigLoader,
  type ListenConfig,
} from '@retry-safe/app-shell/config';
import { z } from 'zod';

/** Addresses the console may listen on: it starts a stack with faults on, so it never leaves this machine. */
const LOOPBACK = ['127.0.0.1', '::1'] as const;

/** The environment the console reads, once, at start-up. */
const EnvSchema = z
  .object({
    CONSOLE_PORT: envPort().default(3100),
    ...shellEnv('127.0.0.1'),
  })
  .refine((e) => (LOOPBACK as readonly string[]).includes(e.HOST), {
    path: ['HOST'],
    message: `must be a loopback address (${LOOPBACK.join(' or ')}): the console drives a stack with faults on`,
  });

/** Validated settings of the console. */
export interface ConsoleConfig extends ListenConfig {
  /** `CONSOLE_PORT` (default 3100); `HOST` (default and only `127.0.0.1` or `::1`). */
  readonly port: number;
}

/** DI token of the {@link ConsoleConfig}. */
export const CONSOLE_CONFIG = Symbol('CONSOLE_CONFIG');

/** Validates the environment into the {@link ConsoleConfig}. */
export const loadConfig: ConfigLoader<ConsoleConfig> = configLoader(
  EnvSchema,
  { service: 'console', portVariable: 'CONSOLE_PORT' },
  () => ({}),
);
