/** The processes of a stack: started together, restarted on their own port with other settings, stopped. */
import { startServiceProcess, type ServiceProcess } from '@retry-safe/testing';
import { ENTRIES, type ServiceSpec } from './service-specs.js';
import type { ServiceEnv, ServiceName } from './stack-types.js';

/** One process and the settings it runs with now. */
interface Slot {
  readonly spec: ServiceSpec;
  env: ServiceEnv;
  process: ServiceProcess | undefined;
}

export class StackServices {
  private readonly slots: Slot[] = [];
  private readonly byName = new Map<ServiceName, ServiceProcess[]>();

  /**
   * @param common what every process gets (fault injection on, the stack's Redis)
   * @param logs print every process's output, prefixed
   */
  constructor(
    private readonly common: ServiceEnv,
    private readonly logs: boolean | undefined,
  ) {}

  /** Starts every process at once (none needs another to boot); throws the first failure. */
  async launchAll(specs: readonly ServiceSpec[]): Promise<void> {
    const slots = specs.map((spec): Slot => ({ spec, env: spec.env, process: undefined }));
    this.slots.push(...slots);
    // Each process is recorded as it comes up, so a failure of another still lets stopAll() stop it.
    const results = await Promise.allSettled(
      slots.map(async (slot) => {
        slot.process = await this.launch(slot.spec, slot.env);
        this.sync();
      }),
    );
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  processes(name: ServiceName): readonly ServiceProcess[] {
    return this.byName.get(name) ?? [];
  }

  /** The first process of a service; throws for a service the stack does not run. */
  first(name: ServiceName): ServiceProcess {
    const service = this.byName.get(name)?.[0];
    if (service === undefined) throw new Error(`${name} is not part of this stack`);
    return service;
  }

  /** Every replica again, on its port, with `env` on top of its first settings; a no-op where nothing changes. */
  async restart(name: ServiceName, env: ServiceEnv): Promise<void> {
    const targets = this.slots.filter((slot) => slot.spec.name === name);
    if (targets.length === 0) throw new Error(`${name} is not part of this stack`);
    for (const slot of targets) {
      const next = { ...slot.spec.env, ...env };
      if (slot.process !== undefined && sameEnv(slot.env, next)) continue;
      if (slot.process !== undefined) await stop(slot.process);
      slot.process = undefined;
      this.sync();
      slot.process = await this.launch(slot.spec, next);
      slot.env = next;
      this.sync();
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.byName.values()].flat().map(stop));
  }

  private launch(spec: ServiceSpec, env: ServiceEnv): Promise<ServiceProcess> {
    return startServiceProcess({
      name: spec.label,
      entry: ENTRIES[spec.name],
      port: spec.port,
      ...(spec.adminPort === undefined ? {} : { adminPort: spec.adminPort }),
      env: { ...this.common, ...env },
      ...(this.logs === undefined ? {} : { logs: this.logs }),
    });
  }

  private sync(): void {
    this.byName.clear();
    for (const slot of this.slots) {
      if (slot.process !== undefined)
        this.byName.set(slot.spec.name, [...(this.byName.get(slot.spec.name) ?? []), slot.process]);
    }
  }
}

function sameEnv(a: ServiceEnv, b: ServiceEnv): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => a[key] === b[key]);
}

/** SIGTERM (graceful shutdown), then SIGKILL if the process is still there after 5 s. */
async function stop(service: ServiceProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 5_000);
  });
  await Promise.race([service.kill('SIGTERM'), grace]);
  clearTimeout(timer);
  await service.kill('SIGKILL');
}
