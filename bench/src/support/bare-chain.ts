/**
 * The floor chain of `pnpm bench:http` (`HTTP_BENCH_FLOOR=1`): four `bare-hop.ts` processes in the shape of the
 * service chain (three relays, then the responder), on free ports, with no store: what the chain's HTTP hops cost
 * with nothing else in them.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';
import type { Chain, ChainOptions, ChainService } from './chain-stack.js';

/** The floor chain's label in the report and in bench/results/http.json. */
export const FLOOR_LABEL = 'bare node:http hops (floor)';

// Built next to this file (bench/dist/support/bare-hop.js).
const HOP_ENTRY = fileURLToPath(new URL('./bare-hop.js', import.meta.url));

/** The floor's four processes, as the last hop first: each relay needs the next one's URL. */
const HOPS_FROM_THE_END = ['provider-sim', 'payments', 'orders', 'gateway'] as const satisfies ChainService[];

/** Starts the floor chain `index` (provider-sim first, the gateway last), named like the services in the report. */
export async function startBareChain(options: ChainOptions, index: number): Promise<Chain> {
  const tag = `bench-chain-${index}`;
  const started: ServiceProcess[] = [];
  const pids: Partial<Record<ChainService, number>> = {};
  let next: string | undefined;
  try {
    for (const service of HOPS_FROM_THE_END) {
      const port = await freePort();
      const proc = await startServiceProcess({
        name: `${tag}-bare-${service}`,
        entry: HOP_ENTRY,
        port,
        telemetry: false,
        env: { HOP_PORT: String(port), ...(next === undefined ? {} : { HOP_NEXT_URL: next }) },
        nodeArgs: [
          ...(options.nodeArgs ?? []),
          ...(options.cpuProfDir === undefined
            ? []
            : ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, `${tag}-${service}`)}`]),
        ],
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
    bare: true,
    gatewayUrl: gateway.url,
    pids: pids as Record<ChainService, number>,
    database: '',
    // Gateway first, so nothing calls a hop that already stopped.
    close: async () => {
      for (const proc of [...started].reverse()) await proc.kill('SIGTERM');
    },
  };
}
