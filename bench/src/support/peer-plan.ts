/** What `pnpm bench:peers` measures and how (one source for the runner, the measures and the report). */
import { positiveInt } from './env.js';
import {
  newCharge,
  type ChargeAction,
  type InProgressExpiry,
  type Peer,
  type PeerCapabilities,
  type PeerSettings,
} from '../peers/peer.js';
import type { LatencySummary } from './stats.js';
import type { ThroughputResult } from './throughput.js';

/** Which row a library is: ours, a peer library (the goals compare against these), or the hand-rolled floor. */
export const Role = { Ours: 'ours', Peer: 'peer', Baseline: 'baseline' } as const;
export type Role = (typeof Role)[keyof typeof Role];

export interface Library {
  readonly id: string;
  readonly role: Role;
  /** Ours as the README recommends using it (our defaults): the row the throughput goals use. */
  readonly recommended?: boolean;
  readonly create: () => Peer;
  /** The stale-owner scenario needs a peer whose action can outlive its lease. */
  readonly createForStaleOwner: () => Peer;
}

/** Every figure the script measures, with the reasons behind the numbers. */
export const PLAN = {
  samples: positiveInt('BENCH_SAMPLES', 2000),
  warmup: 300,
  latencyRounds: 4,
  commandSamples: 200,
  throughputConcurrencies: [64, 256],
  throughputMs: positiveInt('BENCH_THROUGHPUT_MS', 1000),
  // Every library takes each throughput window once per round (rotating order); the table shows the median.
  throughputRounds: positiveInt('BENCH_THROUGHPUT_ROUNDS', 3),
  contentionCalls: 100,
  // Long enough that all 100 calls are in flight together before the first one finishes.
  contentionActionMs: 50,
  // The usual case: a lease far longer than the action (30 s is our default) and a one-hour result.
  settings: { inProgressMs: 30_000, resultTtlMs: 3_600_000 } satisfies PeerSettings,
  staleOwner: { leaseMs: 200, firstActionMs: 800, secondStartsAfterMs: 300, secondActionMs: 50 },
} as const;

export interface ContentionResult {
  readonly calls: number;
  readonly executions: number;
  readonly fulfilled: number;
  readonly rejected: number;
  /** Rejections by the library's error code or name. */
  readonly errors: Readonly<Record<string, number>>;
  /** How many different charges the fulfilled callers were given (1 = everyone saw the same charge). */
  readonly distinctChargesReturned: number;
}

/** Whose result a later call replays after the stale-owner race. */
export type StoredResult = 'first owner' | 'second owner' | 'nothing (a third call ran)' | 'unreadable';

export interface StaleOwnerResult {
  readonly leaseMs: number;
  /** Without a lease there is nothing to outlive: the row then says what the library does instead. */
  readonly inProgressExpiry: InProgressExpiry;
  readonly executions: number;
  readonly stored: StoredResult;
  /** What the caller whose action outlived the lease got back. */
  readonly firstCaller: string;
  /** What the duplicate that came after the lease got back. */
  readonly secondCaller: string;
  /** What a third call for the key got after both settled (a replay, an error, or a new execution). */
  readonly thirdCaller: string;
}

export interface LibraryResult {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly capabilities: PeerCapabilities;
  readonly first: LatencySummary;
  readonly replay: LatencySummary;
  /** Actions that ran during the replay phase (must be 0). */
  readonly replayExecutions: number;
  readonly commands: { readonly first: PerCallCommands; readonly replay: PerCallCommands };
  readonly recommended: boolean;
  /** Per number of keys in flight, first executions (fresh keys) and replays (primed keys). */
  readonly throughput: readonly ThroughputPair[];
  /** Actions that ran during the replay throughput windows (must be 0). */
  readonly throughputReplayExecutions: number;
  readonly contention: ContentionResult;
  readonly staleOwner: StaleOwnerResult;
  /** Ours only: the same race with lease renewal on (our default). */
  readonly staleOwnerWithRenewal?: StaleOwnerResult;
  /** This library's p50 divided by ours (> 1: ours is faster). */
  ratioToOurs?: { readonly firstP50: number; readonly replayP50: number };
}

export interface ThroughputPair {
  readonly concurrency: number;
  readonly first: ThroughputResult;
  readonly replay: ThroughputResult;
}

export interface PerCallCommands {
  readonly server: number;
  readonly roundTrips: number;
  readonly serverByCommand: Readonly<Record<string, number>>;
  readonly clientByCommand: Readonly<Record<string, number>>;
}

export const runId = Date.now().toString(36);
let keySerial = 0;
/** A key no earlier call used; `[a-z0-9-]` only, which every library accepts. */
export function freshKey(phase: string): string {
  return `${runId}-${phase}-${(keySerial++).toString(36)}`;
}

export const instantCharge: ChargeAction = async () => newCharge();

/** Keys each replay worker cycles over; primed before the window, so every call in it is a replay. */
export const REPLAY_KEYS_PER_WORKER = 4;
