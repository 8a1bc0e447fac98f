/** What `pnpm soak` is asked to do, its defaults, and the limits it holds the services to. */
import type { ServiceEnv, ServiceName } from '../stack/stack.js';

/** The limits a soak holds every service to (see docs/operations.md, "Soak"). */
export const SOAK_LIMITS = {
  /** Heap growth allowed from the first third of a life after its warm-up to its last third. */
  heapGrowth: 0.1,
  /** Event-loop delay p99 allowed in any sample outside a kill. */
  eventLoopP99Ms: 100,
} as const;

/** The defaults of {@link SoakOptions}. */
export const SOAK_DEFAULTS = {
  minutes: 10,
  rate: 3,
  sampleSeconds: 10,
  warmupSeconds: 60,
  maxInFlight: 32,
} as const;

/** Options of `runSoak`. */
export interface SoakOptions {
  /** How long the traffic runs. @default 10 */
  minutes?: number;
  /** Orders started per second (each created, paid in one to three payments, some invoiced). @default 3 */
  rate?: number;
  /** Seconds between two samples of every process. @default 10 */
  sampleSeconds?: number;
  /** Seconds of each process life (from the start, and again after a kill) left out of the heap verdict. @default 60 */
  warmupSeconds?: number;
  /** Orders in flight at most (the stack has fallen behind past it). @default 32 */
  maxInFlight?: number;
  /** Seed of the chaos plan (amounts, payments, kills). @default a random one, printed */
  seed?: number;
  /** Settings added to services, e.g. `{ gateway: { NODE_OPTIONS: '--import ./leak.mjs' } }` (the self-test's). */
  env?: Partial<Record<ServiceName, ServiceEnv>>;
  /** Print the services' output. @default false */
  logs?: boolean;
  /** Progress lines. @default none */
  log?: (line: string) => void;
  /** Stops the run early (the stack is still closed). */
  signal?: AbortSignal;
}

/** The numbers of {@link SoakOptions}, every default applied (the report repeats them). */
export type ResolvedSoakOptions = { readonly [K in keyof typeof SOAK_DEFAULTS]: number };

/** The options with their defaults; throws for a number that is not positive. */
export function resolveSoakOptions(options: SoakOptions): ResolvedSoakOptions {
  const resolved = {
    minutes: options.minutes ?? SOAK_DEFAULTS.minutes,
    rate: options.rate ?? SOAK_DEFAULTS.rate,
    sampleSeconds: options.sampleSeconds ?? SOAK_DEFAULTS.sampleSeconds,
    warmupSeconds: options.warmupSeconds ?? SOAK_DEFAULTS.warmupSeconds,
    maxInFlight: options.maxInFlight ?? SOAK_DEFAULTS.maxInFlight,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (!(Number.isFinite(value) && value > 0) && !(name === 'warmupSeconds' && value === 0))
      throw new Error(`${name} must be a positive number, got ${value}`);
  }
  return resolved;
}
