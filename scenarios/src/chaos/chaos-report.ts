/** What a chaos run is asked to do, what it found, and the table `pnpm chaos` prints. */

/** Options of `runChaos`. */
export interface ChaosOptions {
  /** Payments to make. @default 500 */
  payments?: number;
  /** provider-sim deduplicates by the provider key (`PROVIDER_DEDUP`). @default true */
  providerDedup?: boolean;
  /**
   * Seed of everything the run decides itself: amounts, which payments are sent twice, client backoff, when and
   * which payments process is killed. The services' fault rules roll their own dice (`Math.random`).
   * @default a random seed (printed in the report)
   */
  seed?: number;
  /** Chance that a hop (gateway, orders, payments) drops a connection, before or after its handler. @default 0.2 */
  dropProbability?: number;
  /** Chance that provider-sim loses its response after charging. @default 0.1 */
  lostResponseProbability?: number;
  /** Share of payments sent by two clients at once. @default 0.2 */
  sentTwiceShare?: number;
  /** SIGKILLs of a payments process (each started again at once). @default 3 */
  kills?: number;
  /** Payments in flight at once. @default 16 */
  concurrency?: number;
  /** `IDEMPOTENCY_LEASE_MS`: how long a killed process blocks its key. @default 2000 */
  leaseMs?: number;
  /** `PROVIDER_LATENCY_MS`: keeps calls inside the action long enough for a kill to land there. @default 40 */
  providerLatencyMs?: number;
  /** How long a client retries one payment before it counts as lost. @default 60000 */
  clientTimeoutMs?: number;
  /** Print the services' output. @default false */
  logs?: boolean;
  /** Progress lines. @default none */
  log?: (line: string) => void;
  /** Stops the run early (the stack is still closed). */
  signal?: AbortSignal;
}

/** Per service: the gateway, orders and payments hops and provider-sim. */
export interface PerService {
  gateway: number;
  orders: number;
  payments: number;
  provider: number;
}

/** What `runChaos` found. */
export interface ChaosReport {
  readonly options: Required<Omit<ChaosOptions, 'log' | 'signal' | 'logs'>>;
  readonly payments: number;
  readonly sentTwice: number;
  /** Requests the clients sent (first attempts and retries, both clients of a payment sent twice). */
  readonly clientAttempts: number;
  /** Requests that reached each service (the counters of a killed process are read just before the kill). */
  readonly calls: PerService;
  /** Dropped connections per service; for the provider, responses lost after charging. */
  readonly drops: PerService;
  readonly kills: number;
  /** Charges in the provider's ledger. */
  readonly charges: number;
  /** Provider charges beyond the first, over all payments. */
  readonly duplicates: number;
  /**
   * With provider dedup off, where the duplicates came from: every response the provider lost after charging is
   * one (the retry charges again); the rest are charges made for a payments process that was killed inside the
   * provider call.
   */
  readonly duplicatesByPath: { lostResponse: number; crash: number } | undefined;
  /** Payments without a 201 for every client, without a provider charge, or whose Charge names no charge of theirs. */
  readonly lost: number;
  /** Payments whose 201s (every client's and the final replay) are not the same bytes. */
  readonly replayMismatches: number;
  /** Provider charges under a key no payment used. */
  readonly strayCharges: number;
  /** The first problems found, for the log. */
  readonly problems: readonly string[];
  readonly durationMs: number;
  /** Duplicates 0 (when provider dedup is on), lost 0, mismatches 0, stray 0. */
  readonly ok: boolean;
}

/** {@link ChaosOptions} with every default applied (the report repeats them, seed included). */
export type ResolvedChaosOptions = ChaosReport['options'];

/** The options with their documented defaults; a random seed when none is given. */
export function resolveChaosOptions(options: ChaosOptions): ResolvedChaosOptions {
  return {
    payments: options.payments ?? 500,
    providerDedup: options.providerDedup ?? true,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    dropProbability: options.dropProbability ?? 0.2,
    lostResponseProbability: options.lostResponseProbability ?? 0.1,
    sentTwiceShare: options.sentTwiceShare ?? 0.2,
    kills: options.kills ?? 3,
    concurrency: options.concurrency ?? 16,
    leaseMs: options.leaseMs ?? 2_000,
    providerLatencyMs: options.providerLatencyMs ?? 40,
    clientTimeoutMs: options.clientTimeoutMs ?? 60_000,
  };
}

/** The table `pnpm chaos` prints. */
export function formatChaosReport(report: ChaosReport): string {
  const o = report.options;
  const pad = (text: string | number, width: number): string => String(text).padStart(width);
  const row = (label: string, values: PerService): string =>
    `${label.padEnd(26)}${pad(values.gateway, 9)}${pad(values.orders, 9)}${pad(values.payments, 10)}${pad(values.provider, 10)}`;
  const line = (label: string, value: string | number, note = ''): string =>
    `${label.padEnd(26)}${pad(value, 9)}${note ? `   ${note}` : ''}`;
  const dedup = o.providerDedup ? 'on' : 'off';
  const duplicatesNote = report.duplicatesByPath
    ? `provider dedup off: lost provider response ${report.duplicatesByPath.lostResponse}, crash ${report.duplicatesByPath.crash}`
    : 'must be 0';
  return [
    `chaos run: seed ${o.seed}, provider dedup ${dedup}, 2 payments replicas, lease ${o.leaseMs} ms, provider latency ${o.providerLatencyMs} ms`,
    `faults: each hop drops p=${o.dropProbability} (half before, half after its handler); the provider loses responses p=${o.lostResponseProbability}; ${o.kills} payments kill(s)`,
    '',
    line('payments', report.payments, `${report.sentTwice} of them sent twice at once`),
    line('client attempts', report.clientAttempts, 'clients retry with the same key until a final answer'),
    `${''.padEnd(26)}${pad('gateway', 9)}${pad('orders', 9)}${pad('payments', 10)}${pad('provider', 10)}`,
    row('calls', report.calls),
    row('drops (provider: lost)', report.drops),
    line('kills', report.kills, 'SIGKILL of a payments process, started again'),
    line('charges', report.charges, `provider ledger, for ${report.payments} payments`),
    line('duplicates', report.duplicates, duplicatesNote),
    line('lost', report.lost, 'must be 0'),
    line(
      'replays differing',
      report.replayMismatches,
      'must be 0: one 201 Charge, identical on every replay',
    ),
    line('stray charges', report.strayCharges, 'must be 0'),
    line('duration', `${(report.durationMs / 1000).toFixed(1)} s`),
    line(
      'result',
      report.ok ? 'OK' : 'FAILED',
      report.ok && !o.providerDedup ? 'nothing lost; the duplicates are what provider dedup off costs' : '',
    ),
    ...(report.problems.length > 0 ? ['', 'problems:', ...report.problems.map((p) => `  ${p}`)] : []),
  ].join('\n');
}
