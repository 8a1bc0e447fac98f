import { Controller, Delete, Get, HttpCode, Inject, Injectable } from '@nestjs/common';

/** One request as the journal keeps it. */
export interface JournalEntry {
  /** Grows with every entry of this process. */
  readonly seq: number;
  readonly service: string;
  /** `x-request-id`: one id for a client request across every hop and retry. */
  readonly requestId: string;
  readonly method: string;
  /** Route template (`/v1/payments`), or `unmatched`. */
  readonly route: string;
  readonly path: string;
  /**
   * `idempotencyKeyDigest` of the `Idempotency-Key` header, if any: never the key itself (a key lets whoever holds it
   * replay its answer, and the journal is read across tenants).
   */
  readonly idempotencyKeyDigest?: string;
  /** Epoch ms (fractional) when the request arrived. */
  readonly startedAt: number;
  /** Epoch ms (fractional) when its connection closed. */
  readonly endedAt: number;
  /** The status sent, or `aborted` when the socket closed without an answer (a `drop` fault, a client gone). */
  readonly status: number | 'aborted';
  /** The answer carried `Idempotent-Replayed: true`. */
  readonly replayed: boolean;
}

/** Options of a {@link RequestJournal}. */
export interface RequestJournalOptions {
  /** Record at all (`FAULTS_ENABLED`); off, {@link RequestJournal.record} does nothing. */
  readonly enabled: boolean;
  /** @default 1000 (the oldest entries are dropped beyond it) */
  readonly capacity?: number;
}

/** The journal's clock: epoch ms (fractional), comparable across the processes of one host. */
export { preciseNow } from '@retry-safe/contracts';

/**
 * A bounded, in-memory journal of what this process did, for `GET /__requests`: the scenario runner draws its
 * sequence diagrams from what each service really saw, dropped answers and retries included. Kept only with
 * `FAULTS_ENABLED=true`. {@link RequestJournal} keeps HTTP requests; an app with other work (the worker's job
 * deliveries) keeps its own subclass and hands it to the shell as its `journal`.
 */
export class Journal<E extends { readonly seq: number }> {
  private readonly entries: E[] = [];
  private seq = 0;
  private readonly capacity: number;

  constructor(private readonly options: RequestJournalOptions) {
    this.capacity = options.capacity ?? 1000;
  }

  /** Whether {@link Journal.record} keeps anything. */
  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Keeps `entry` (numbered), dropping the oldest beyond the capacity; a no-op when disabled. */
  record(entry: Omit<E, 'seq'>): void {
    if (!this.options.enabled) return;
    this.seq += 1;
    this.entries.push({ seq: this.seq, ...entry } as E);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Entries, oldest first. */
  list(): E[] {
    return [...this.entries];
  }

  /** Forgets every entry (scenarios start from a clean journal). */
  clear(): void {
    this.entries.length = 0;
  }
}

/** The HTTP requests this process answered (or dropped); {@link RequestContextMiddleware} records them. */
@Injectable()
export class RequestJournal extends Journal<JournalEntry> {}

/** DI token of the journal `GET /__requests` serves: the app's own, else the {@link RequestJournal}. */
export const SCENARIO_JOURNAL = Symbol('SCENARIO_JOURNAL');

/** `GET /__requests` (the journal) and `DELETE /__requests`; mounted only with `FAULTS_ENABLED=true`. */
@Controller()
export class RequestJournalController {
  constructor(@Inject(SCENARIO_JOURNAL) private readonly journal: Journal<{ readonly seq: number }>) {}

  @Get('__requests')
  requests(): { requests: unknown[] } {
    return { requests: this.journal.list() };
  }

  @Delete('__requests')
  @HttpCode(204)
  clearRequests(): void {
    this.journal.clear();
  }
}
