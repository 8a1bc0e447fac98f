import { performance } from 'node:perf_hooks';

/** A call still waiting for its answer: when it must have settled, and what to do if it has not. */
interface Pending {
  readonly endsAt: number;
  readonly expire: () => void;
  prev: Pending | undefined;
  next: Pending | undefined;
}

/**
 * Calls that all wait the same number of ms, oldest first: the oldest is always the first to end, so one timer
 * for the oldest stands for all of them. A doubly linked list: appending and unlinking a settled call are O(1)
 * and allocate nothing beyond the entry (a Set's hashing and compaction cost more per call than the timer saved).
 */
class DeadlineQueue {
  private head: Pending | undefined;
  private tail: Pending | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(expire: () => void): Pending {
    const entry: Pending = { endsAt: performance.now() + this.ms, expire, prev: this.tail, next: undefined };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.arm(this.ms);
    return entry;
  }

  delete(entry: Pending): void {
    const { prev, next } = entry;
    if (prev) prev.next = next;
    else if (this.head === entry) this.head = next;
    else return; // already removed
    if (next) next.prev = prev;
    else this.tail = prev;
    entry.prev = entry.next = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.due(), Math.ceil(ms));
    this.timer.unref();
  }

  // A timer runs before the I/O of its loop iteration is read: after this process was busy past the bound (a
  // burst of requests on a loaded CPU), answers can sit unread in the socket. Expiring now would report the store
  // down for this process's own lag, so the check runs in the check phase, right after the poll phase has read
  // them. `timer` stays set until then: a call added meanwhile does not arm a second timer. Not unref'd: an
  // unref'd immediate lets the poll phase block until other I/O comes, and it runs within this iteration anyway.
  private due(): void {
    setImmediate(() => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (let entry = this.head; entry; entry = this.head) {
      // Never early: a call gives up only once its own `ms` have passed.
      if (entry.endsAt > now) {
        this.arm(entry.endsAt - now);
        return;
      }
      this.delete(entry);
      entry.expire();
    }
  }
}

/**
 * Bounds a store's calls in time. A timer per call (set, unref'd, cleared) cost about 1 µs of Node CPU per call
 * on the hot path; here the calls with the same bound share one timer, armed for the oldest of them.
 */
export class Deadlines {
  private readonly queues = new Map<number, DeadlineQueue>();

  /**
   * Settles with `promise`, or rejects with `onTimeout()` once `ms` have passed; a rejection of `promise` itself
   * becomes `mapError(error)`.
   */
  bound<T>(
    promise: Promise<T>,
    ms: number,
    onTimeout: () => unknown,
    mapError: (error: unknown) => unknown,
  ): Promise<T> {
    let queue = this.queues.get(ms);
    if (!queue) {
      queue = new DeadlineQueue(ms);
      this.queues.set(ms, queue);
    }
    const calls = queue;
    return new Promise<T>((resolve, reject) => {
      const entry = calls.add(() => reject(onTimeout()));
      promise.then(
        (value) => {
          calls.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          calls.delete(entry);
          reject(mapError(error));
        },
      );
    });
  }
}
