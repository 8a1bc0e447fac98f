import { Controller, Delete, Get, HttpCode, Injectable } from '@nestjs/common';

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
  /** The raw `Idempotency-Key` header, if any. */
  readonly idempotencyKey?: string;
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

/** Epoch milliseconds with sub-millisecond precision, comparable across the processes of one host. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The last requests this process answered (or dropped), for `GET /__requests`: the scenario runner draws its
 * sequence diagrams from what each service really saw, dropped answers and retries included. Kept only with
 * `FAULTS_ENABLED=true`, bounded, in memory.
 */
@Injectable()
export class RequestJournal {
  private readonly entries: JournalEntry[] = [];
  private seq = 0;
  private readonly capacity: number;

  constructor(private readonly options: RequestJournalOptions) {
    this.capacity = options.capacity ?? 1000;
  }

  /** Whether {@link RequestJournal.record} keeps anything. */
  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Keeps `entry` (numbered), dropping the oldest beyond the capacity; a no-op when disabled. */
  record(entry: Omit<JournalEntry, 'seq'>): void {
    if (!this.options.enabled) return;
    this.seq += 1;
    this.entries.push({ seq: this.seq, ...entry });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Entries, oldest first. */
  list(): JournalEntry[] {
    return [...this.entries];
  }

  /** Forgets every entry (scenarios start from a clean journal). */
  clear(): void {
    this.entries.length = 0;
  }
}

/** `GET /__requests` (the request journal) and `DELETE /__requests`; mount it only with `FAULTS_ENABLED=true`. */
@Controller()
export class RequestJournalController {
  constructor(private readonly journal: RequestJournal) {}

  @Get('__requests')
  requests(): { requests: JournalEntry[] } {
    return { requests: this.journal.list() };
  }

  @Delete('__requests')
  @HttpCode(204)
  clearRequests(): void {
    this.journal.clear();
  }
}
