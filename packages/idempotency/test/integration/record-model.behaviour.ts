import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { RecordId } from '../../src/index.js';
import { ReferenceModel, type ModelCall, type ModelTimes } from '../../model/reference.js';
import { loadTransitions } from '../../model/transitions.js';
import type { RecordSystem } from './record-systems.js';

/**
 * Model-based property tests of one store: fast-check draws sequences of claim / renew / complete / release /
 * store-if-absent by three clients, replies lost on the wire, late resends and the clock moving on, runs them
 * against the real store and checks every answer against the reference model (the table's rows, the same rows
 * the Promela model is generated from). A divergence shrinks to a minimal sequence; the seed is printed with it.
 *
 * `MODEL_RUNS` sets the runs per store (`pnpm test:model` raises them); `MODEL_SEED` (and `MODEL_PATH`, from a
 * failure's report) replays a run.
 */
export interface ModelSuiteOptions {
  readonly runs: number;
  /** The store has a sweep of expired records to drive. */
  readonly sweeps?: boolean;
  /** Runs one sequence on the store (e.g. inside a transaction opened for it). */
  readonly withSystem: (run: (system: RecordSystem) => Promise<void>) => Promise<void>;
}

export const MODEL_TIMES: ModelTimes = { lease: 3, retain: 4, ttl: 4 };
/** One unit of the model's time: far longer than the tests' own time, so no deadline passes by itself. */
export const MODEL_UNIT_MS = 10_000;

const table = loadTransitions();
const CLIENTS = 3;

interface Client {
  owner: string | undefined;
  fingerprint: string;
  attempts: number;
  last: ModelCall | undefined;
}

class RunModel {
  readonly ref: ReferenceModel;
  readonly clients: Client[] = Array.from({ length: CLIENTS }, () => ({
    owner: undefined,
    fingerprint: 'fp-a',
    attempts: 0,
    last: undefined,
  }));
  constructor(system: RecordSystem) {
    this.ref = new ReferenceModel(system.kind, system.times, table, system.heldByTransaction);
  }
}

interface Real {
  readonly system: RecordSystem;
  readonly id: RecordId;
}

type Cmd = fc.AsyncCommand<RunModel, Real>;

/** Runs `c` for `client` on the store, checks the answer against the model, remembers it for a resend. */
async function call(m: RunModel, r: Real, client: number, c: ModelCall, lose: boolean): Promise<void> {
  const observed = await r.system.call(r.id, c, lose);
  m.ref.step(c, observed);
  m.clients[client]!.last = c;
}

const lost = (lose: boolean) => (lose ? ', reply lost' : '');

class Claim implements Cmd {
  constructor(
    readonly client: number,
    readonly newOwner: boolean,
    readonly fingerprint: string,
    readonly lose: boolean,
  ) {}
  check(m: Readonly<RunModel>): boolean {
    const c = m.clients[this.client]!;
    if (this.newOwner) return true;
    return c.owner !== undefined;
  }
  private callOf(c: Client, owner = c.owner ?? ''): ModelCall {
    return { call: 'claim', owner, fingerprint: c.fingerprint };
  }
  async run(m: RunModel, r: Real): Promise<void> {
    const c = m.clients[this.client]!;
    if (this.newOwner) {
      c.attempts += 1;
      c.owner = `c${this.client}-${c.attempts}`;
      c.fingerprint = this.fingerprint;
    }
    await call(m, r, this.client, this.callOf(c), this.lose);
  }
  toString(): string {
    const who = this.newOwner ? `a new owner, ${this.fingerprint}` : 'the same owner (waiting)';
    return `c${this.client}.claim(${who}${lost(this.lose)})`;
  }
}

/** complete / completeWithoutResult / renew / release by the client's current owner, stale or not. */
class OwnerCall implements Cmd {
  constructor(
    readonly client: number,
    readonly kind: 'complete' | 'completeWithoutResult' | 'renew' | 'release',
    readonly lose: boolean,
  ) {}
  check(m: Readonly<RunModel>): boolean {
    return m.clients[this.client]!.owner !== undefined;
  }
  async run(m: RunModel, r: Real): Promise<void> {
    const c = m.clients[this.client]!;
    const payload = this.kind === 'complete' ? { payload: `{"by":"${c.owner}"}` } : {};
    await call(
      m,
      r,
      this.client,
      { call: this.kind, owner: c.owner!, fingerprint: c.fingerprint, ...payload },
      this.lose,
    );
  }
  toString(): string {
    return `c${this.client}.${this.kind}(${lost(this.lose).slice(2)})`;
  }
}

/** An unprotected run's result (fail-open, run mode): stored only where there is no record. */
class StoreIfAbsent implements Cmd {
  constructor(
    readonly client: number,
    readonly fingerprint: string,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, r: Real): Promise<void> {
    const c: ModelCall = {
      call: 'storeIfAbsent',
      owner: '',
      fingerprint: this.fingerprint,
      payload: '{"unprotected":1}',
    };
    await call(m, r, this.client, c, false);
  }
  toString(): string {
    return `c${this.client}.storeIfAbsent(${this.fingerprint})`;
  }
}

/** The client's last call arrives again, late (a resend after a reconnect, a retried call). */
class Resend implements Cmd {
  constructor(readonly client: number) {}
  check(m: Readonly<RunModel>): boolean {
    return m.clients[this.client]!.last !== undefined;
  }
  async run(m: RunModel, r: Real): Promise<void> {
    await call(m, r, this.client, m.clients[this.client]!.last!, false);
  }
  toString(): string {
    return `c${this.client}.resend()`;
  }
}

class Advance implements Cmd {
  constructor(readonly units: number) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, r: Real): Promise<void> {
    await r.system.advance(r.id, this.units);
    m.ref.advance(this.units);
  }
  toString(): string {
    return `advance(${this.units} x ${MODEL_UNIT_MS / 1000} s)`;
  }
}

class Sweep implements Cmd {
  check(): boolean {
    return true;
  }
  async run(m: RunModel, r: Real): Promise<void> {
    await r.system.sweep!();
    m.ref.sweep();
  }
  toString(): string {
    return 'sweep()';
  }
}

function commandsFor(sweeps: boolean): fc.Arbitrary<Iterable<Cmd>> {
  const client = fc.integer({ min: 0, max: CLIENTS - 1 });
  const fingerprint = fc.constantFrom('fp-a', 'fp-a', 'fp-a', 'fp-b');
  // About one call in eight loses its reply (7, not 0: a sequence shrinks towards replies that arrive).
  const lose = fc.integer({ min: 0, max: 7 }).map((n) => n === 7);
  const claim = fc
    .tuple(client, fc.boolean(), fingerprint, lose)
    .map(([c, n, f, l]) => new Claim(c, n, f, l));
  const owned = (kind: OwnerCall['kind']) =>
    fc.tuple(client, lose).map(([c, l]) => new OwnerCall(c, kind, l));
  const arbitraries: fc.Arbitrary<Cmd>[] = [
    claim,
    claim,
    owned('complete'),
    owned('complete'),
    owned('completeWithoutResult'),
    owned('renew'),
    owned('release'),
    fc.tuple(client, fingerprint).map(([c, f]) => new StoreIfAbsent(c, f)),
    client.map((c) => new Resend(c)),
    fc.integer({ min: 1, max: 5 }).map((units) => new Advance(units)),
    fc.integer({ min: 1, max: 5 }).map((units) => new Advance(units)),
  ];
  if (sweeps) arbitraries.push(fc.constant(new Sweep()));
  return fc.commands(arbitraries, { maxCommands: 30, size: 'max' });
}

/** The property, `runs` times against the store `withSystem` lends each run. */
export function describeRecordModel(name: string, options: ModelSuiteOptions): void {
  describe(`the record protocol on ${name}, against the reference model`, () => {
    const runs = Number(process.env['MODEL_RUNS'] ?? options.runs);
    const seed = Number(process.env['MODEL_SEED'] ?? Math.floor(Math.random() * 0x7fffffff));
    const path = process.env['MODEL_PATH'];

    it(
      `${runs} random sequences of calls, lost replies, resends and time answer as the table says`,
      async () => {
        const property = fc.asyncProperty(commandsFor(options.sweeps ?? false), (cmds) =>
          options.withSystem(async (s) => {
            const id = { operation: 'model.run', key: `k-${randomUUID()}` };
            try {
              const setup = () => ({ model: new RunModel(s), real: { system: s, id } });
              await fc.asyncModelRun(setup, cmds);
            } finally {
              await s.remove(id);
            }
          }),
        );
        const details = await fc.check(property, { numRuns: runs, seed, ...(path ? { path } : {}) });
        // The report names the seed and the shrunk sequence: MODEL_SEED=<seed> MODEL_PATH=<path> replays it.
        const report = details.failed
          ? `MODEL_SEED=${seed}\n${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}`
          : 'passed';
        expect(report).toBe('passed');
      },
      // A bound, not a measurement: a few ms per call, on a loaded machine many times that.
      Math.max(120_000, runs * 1_000),
    );
  });
}
