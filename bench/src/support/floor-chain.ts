/**
 * The floor chains of `pnpm bench:http` (`HTTP_BENCH_FLOOR`): four hop processes in the shape of the service chain
 * (three relays, then the responder), on free ports, with no store: what the chain's HTTP hops cost with nothing
 * else in them. Two designs, the same chain of hops with a different entry: `bare` (bare-hop.ts, plain `node:http`)
 * and `nest` (nest-hop.ts, NestJS on Fastify, the services' framework, with nothing of theirs in it).
 */
import { fileURLToPath } from 'node:url';
import { freePort, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';
import { chainNodeArgs } from './chain-node-args.js';
import type { Chain, ChainOptions, ChainService } from './chain-stack.js';

/** A floor design: `bare` node:http hops, or `nest` (NestJS on Fastify) hops. */
export type FloorDesign = 'bare' | 'nest';

/** The bare floor's label in the report and in bench/results/http.json. */
export const FLOOR_LABEL = 'bare node:http hops (floor)';
/** The framework floor's label in the report and in bench/results/http.json. */
export const NEST_FLOOR_LABEL = 'Nest on Fastify hops (framework floor)';

/** Each design's label, its name in the ratio lines, and its hop's entry (built next to this file). */
export const FLOORS = {
  bare: {
    label: FLOOR_LABEL,
    short: 'floor',
    entry: fileURLToPath(new URL('./bare-hop.js', import.meta.url)),
  },
  nest: {
    label: NEST_FLOOR_LABEL,
    short: 'Nest floor',
    entry: fileURLToPath(new URL('./nest-hop.js', import.meta.url)),
  },
} as const satisfies Record<FloorDesign, { label: string; short: string; entry: string }>;

/**
 * The designs `HTTP_BENCH_FLOOR` asks for: `1` (as before the framework floor) or `bare` the bare one, `nest` the
 * framework one, `bare,nest` both; unset or empty, none. Any other name fails the run before anything starts.
 */
export function floorDesignsOf(setting: string | undefined): FloorDesign[] {
  const names = (setting ?? '').split(',').map((name) => name.trim());
  const designs = new Set<FloorDesign>();
  for (const name of names.filter((n) => n !== '')) {
    if (name === '1' || name === 'bare') designs.add('bare');
    else if (name === 'nest') designs.add('nest');
    else throw new Error(`HTTP_BENCH_FLOOR: unknown floor "${name}" (1, bare, nest or bare,nest)`);
  }
  return [...designs];
}

/** The floor's four processes, as the last hop first: each relay needs the next one's URL. */
const HOPS_FROM_THE_END = ['provider-sim', 'payments', 'orders', 'gateway'] as const satisfies ChainService[];

/**
 * Starts the floor chain `index` of `design` (provider-sim first, the gateway last), named like the services in the
 * report.
 */
export async function startFloorChain(
  options: ChainOptions,
  index: number,
  design: FloorDesign,
): Promise<Chain> {
  const tag = `bench-chain-${index}`;
  const started: ServiceProcess[] = [];
  const pids: Partial<Record<ChainService, number>> = {};
  let next: string | undefined;
  try {
    for (const service of HOPS_FROM_THE_END) {
      const port = await freePort();
      const proc = await startServiceProcess({
        name: `${tag}-${design}-${service}`,
        entry: FLOORS[design].entry,
        port,
        telemetry: false,
        env: { HOP_PORT: String(port), ...(next === undefined ? {} : { HOP_NEXT_URL: next }) },
        nodeArgs: chainNodeArgs(options, tag, service),
        startTimeoutMs: 30_000,
      });
      started.push(proc);
      if (proc.pid === undefined) throw new Error(`${proc.name} has no pid`);
      pids[service] = proc.pid;
      next = proc.url;
    }
  } catch (error) {
    await Promise.all(started.map((proc) => proc.kill('SIGKILL')));
    throw error;
  }
  const gateway = started.at(-1);
  if (gateway === undefined) throw new Error('the floor chain started no hop');
  return {
    label: options.label,
    coordinator: options.coordinator,
    floor: design,
    gatewayUrl: gateway.url,
    pids: pids as Record<ChainService, number>,
    database: '',
    // Gateway first, so nothing calls a hop that already stopped.
    close: async () => {
      for (const proc of [...started].reverse()) await proc.kill('SIGTERM');
    },
  };
}
