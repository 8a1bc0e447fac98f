import { Injectable } from '@nestjs/common';

/**
 * Whether the app is draining: set once, on SIGTERM, by {@link bootstrap}'s shutdown. Readiness reads it, so a
 * load balancer takes the instance out of rotation while its in-flight requests finish.
 */
@Injectable()
export class ShutdownState {
  private drainingSince: number | undefined;

  /** True from the shutdown signal on. */
  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** Marks the start of the drain (idempotent: a second signal changes nothing). */
  startDraining(now = Date.now()): void {
    this.drainingSince ??= now;
  }
}
