import { createHash } from 'node:crypto';
import type { Job, JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';

/**
 * The queue where jobs whose retry horizon ended wait for an operator (`pnpm invoices:redrive`). Nothing consumes
 * it: its jobs stay in `wait`, and its length is the `invoice_dead_letter_jobs` gauge an alert watches. It shares
 * the invoice queue's prefix, hence its hash tag, so on Redis Cluster both live in one slot.
 */
export const DEAD_LETTER_QUEUE = 'invoices-dead-letter';

/** Name of the jobs on {@link DEAD_LETTER_QUEUE}. */
export const DEAD_LETTER_JOB_NAME = 'dead-invoice';

/**
 * The dead letter's own job id: the dead job's, prefixed (BullMQ refuses custom ids that look like integers, and
 * the invoice queue's automatic ids do).
 */
export function deadLetterId(jobId: string): string {
  return `dead-${jobId}`;
}

/** What a dead letter keeps of the job it stands for: enough to publish it again as it was. */
export const DeadLetterSchema = z.object({
  /** The dead job's id on the invoice queue (the dead letter's own is {@link deadLetterId} of it). */
  jobId: z.string().min(1),
  /** The dead job's name. */
  name: z.string(),
  /** The dead job's data, as the producer wrote it. */
  data: z.unknown(),
  /** The producer's job options that matter for a re-publication. */
  opts: z.record(z.string(), z.unknown()),
  /** The last failure, code first: `RETRY_HORIZON_EXHAUSTED: ... last failure: MAIL_PROVIDER_UNAVAILABLE: ...`. */
  reason: z.string(),
  /** Deliveries the job had (BullMQ `attemptsStarted`). */
  attemptsStarted: z.number(),
  /** Epoch ms of the job's publication (its horizon started there). */
  publishedAt: z.number(),
  /** Epoch ms it was dead-lettered. */
  deadAt: z.number(),
});
/** One dead letter. */
export type DeadLetter = z.output<typeof DeadLetterSchema>;

// Options of the original job worth keeping; ids, delays and timestamps belong to the old publication.
const KEPT_OPTIONS = ['attempts', 'backoff', 'removeOnComplete', 'removeOnFail', 'priority'] as const;

/** The dead letter of `job`, which failed for the last time with `reason`. */
export function toDeadLetter(job: Job, reason: string, now: number): DeadLetter {
  const opts: Record<string, unknown> = {};
  for (const name of KEPT_OPTIONS) if (job.opts[name] !== undefined) opts[name] = job.opts[name];
  return {
    jobId: job.id ?? '',
    name: job.name,
    data: job.data as unknown,
    opts,
    reason,
    attemptsStarted: job.attemptsStarted,
    publishedAt: job.timestamp,
    deadAt: now,
  };
}

/**
 * Parks `letter` on the dead-letter queue under the dead job's id. Idempotent: BullMQ ignores an `add` whose job
 * id exists, so a worker that dies after this and before failing the job (the job is then redelivered and dies
 * again) leaves one dead letter, not two.
 */
export async function addDeadLetter(deadLetters: Queue, letter: DeadLetter): Promise<void> {
  await deadLetters.add(DEAD_LETTER_JOB_NAME, letter, { jobId: deadLetterId(letter.jobId) });
}

/**
 * The delivery id (and job id) of the re-publication of dead letter `deadLetterId`: derived, not random, so a
 * re-drive that died between publishing and removing the dead letter publishes the same job again, which BullMQ
 * ignores. A UUID of version 8 (RFC 9562's custom layout), valid wherever the job contract wants a UUID.
 */
export function redriveDeliveryId(deadLetterId: string): string {
  const hex = createHash('sha256').update(`invoice-redrive:${deadLetterId}`).digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-');
}

/** What {@link redrive} did. */
export interface RedriveReport {
  /** Dead letters published again: the dead job's id and the new job's id. */
  readonly redriven: ReadonlyArray<{ readonly deadJobId: string; readonly jobId: string }>;
  /** Ids asked for that are not (or no longer) on the dead-letter queue. */
  readonly notFound: readonly string[];
}

const PAGE = 100;

/**
 * Publishes dead letters on the invoice queue again, each as a new delivery with a fresh horizon, then removes
 * them: every dead letter, or only those of the dead jobs `ids`. An invoice that was sent after all (the provider answered
 * after the horizon, say) is not sent again: the worker's idempotency key is the invoice version, and the new
 * delivery replays its receipt.
 */
export async function redrive(
  deadLetters: Queue,
  invoices: Queue,
  ids?: readonly string[],
): Promise<RedriveReport> {
  const redriven: Array<{ deadJobId: string; jobId: string }> = [];
  const notFound: string[] = [];
  const one = async (dead: Job): Promise<void> => {
    const letter = DeadLetterSchema.parse(dead.data);
    const deliveryId = redriveDeliveryId(letter.jobId);
    const data =
      typeof letter.data === 'object' && letter.data !== null ? { ...letter.data, deliveryId } : letter.data;
    // Publish first, remove second: a crash in between leaves the dead letter, and the next re-drive's add of
    // the same derived id is a no-op, never a lost invoice.
    await invoices.add(letter.name, data, { ...(letter.opts as JobsOptions), jobId: deliveryId });
    await dead.remove();
    redriven.push({ deadJobId: letter.jobId, jobId: deliveryId });
  };
  if (ids !== undefined) {
    for (const id of ids) {
      const dead = await deadLetters.getJob(deadLetterId(id));
      if (dead === undefined) notFound.push(id);
      else await one(dead);
    }
    return { redriven, notFound };
  }
  // Always the first page: each pass removes what it re-published.
  for (;;) {
    const page = await deadLetters.getJobs(['wait', 'prioritized'], 0, PAGE - 1, true);
    if (page.length === 0) return { redriven, notFound };
    for (const dead of page) await one(dead);
  }
}
