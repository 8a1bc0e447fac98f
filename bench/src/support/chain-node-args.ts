import { join } from 'node:path';

/** What every process of a chain (a service's or a floor's hop) is started with besides its entry. */
export interface ChainNodeArgsOptions {
  /** `HTTP_BENCH_NODE_ARGS` of the design, if any. */
  readonly nodeArgs?: readonly string[];
  /** `HTTP_BENCH_CPU_PROF`: each process writes its `.cpuprofile` into its own folder below it. */
  readonly cpuProfDir?: string;
}

/**
 * The node options of the process `service` of chain `tag`: the design's, then `--cpu-prof` into
 * `<cpuProfDir>/<tag>-<service>` when profiling, the folder `profile-summary.js` names its sections by.
 */
export function chainNodeArgs(options: ChainNodeArgsOptions, tag: string, service: string): string[] {
  return [
    ...(options.nodeArgs ?? []),
    ...(options.cpuProfDir === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, `${tag}-${service}`)}`]),
  ];
}
