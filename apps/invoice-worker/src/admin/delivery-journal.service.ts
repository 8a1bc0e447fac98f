import { Injectable } from '@nestjs/common';

/** One delivery (one processing attempt of a job) as the journal keeps it. */
export interface DeliveryEntry {
  /** Grows with every entry of this process. */
  readonly seq: number;
  readonly service: 'worker';
  /** The job's `deliveryId` (what the mail provider sees as `x-request-id`). */
  readonly requestId: string;
  readonly jobId: string;
  /** BullMQ's `attemptsStarted` for this delivery (1 for the first). */
  readonly attempt: number;
  /** Epoch ms (fractional) when processing started. */
  readonly startedAt: number;
  /** Epoch ms (fractional) when it returned (acknowledged) or threw (not acknowledged). */
  readonly endedAt: number;
  /** `completed`: the processor returned, the job is acknowledged; `failed`: it threw. */
  readonly status: 'completed' | 'failed';
  /** How the receipt was obtained (`executed`, `replayed`, `unprotected`), when the send step returned. */
  readonly outcome?: string;
  /** The failure's code (`FAULT_INJECTED`, `IDEMPOTENCY_IN_PROGRESS`...), when it failed. */
  readonly error?: string;
}

/** Epoch milliseconds with sub-millisecond precision, comparable across the processes of one host. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The last deliveries this process handled, for `GET /__requests`: the scenario runner draws its sequence
 * diagrams from them. Kept only with `FAULTS_ENABLED=true`, bounded (1000), in memory.
 */
@Injectable()
export class DeliveryJournal {
  private readonly entries: DeliveryEntry[] = [];
  private seq = 0;

  constructor(private readonly options: { readonly enabled: boolean; readonly capacity?: number }) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  record(entry: Omit<DeliveryEntry, 'seq' | 'service'>): void {
    if (!this.options.enabled) return;
    this.seq += 1;
    this.entries.push({ seq: this.seq, service: 'worker', ...entry });
    const capacity = this.options.capacity ?? 1000;
    if (this.entries.length > capacity) this.entries.splice(0, this.entries.length - capacity);
  }

  /** Entries, oldest first. */
  list(): DeliveryEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries.length = 0;
  }
}
