import { Journal } from '@retry-safe/app-shell/admin';

export { preciseNow } from '@retry-safe/app-shell/admin';

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

/**
 * The last deliveries this process handled, for `GET /__requests` (the shell serves it as the app's journal): the
 * scenario runner draws its sequence diagrams from them. Kept only with `FAULTS_ENABLED=true`, bounded, in memory.
 */
export class DeliveryJournal extends Journal<DeliveryEntry> {
  override record(entry: Omit<DeliveryEntry, 'seq' | 'service'>): void {
    super.record({ service: 'worker', ...entry });
  }
}
