import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { FaultInjectedError, FaultInjector } from '@retry-safe/fault-injection';

/**
 * Named points inside the orders service where a rule (`PUT /__faults`, method `JOB`, as the worker's
 * `JOB invoices/...`) can strike between two steps that must not be separated: the crash windows of the issue.
 */
export const OrderFaultPoint = {
  /** The order and its record committed; the answer not sent yet. */
  AfterCreateCommit: 'orders/after-create-commit',
  /** Payments answered 201 (the provider charged); the Charge not applied to the order yet. */
  AfterCharge: 'orders/after-charge',
  /**
   * Applying a Charge: decided that it is to be applied (in the applying transaction, before its write: first in
   * the optimistic transaction, after the claim of the key's record on the claim path, or, in the read-then-write
   * demonstration, after the read found no payment); nothing written yet. A `delay` here lets two retries overlap
   * in the window a read-then-write leaves open.
   */
  BeforeApplyWrite: 'orders/before-apply-write',
  /** An invoice request and its outbox row committed; not on the queue yet. */
  AfterInvoiceCommit: 'orders/after-invoice-commit',
  /** The relay added outbox rows to the queue; not marked published yet. */
  AfterPublish: 'orders/after-publish',
} as const;
/** One of {@link OrderFaultPoint}'s values. */
export type OrderFaultPoint = (typeof OrderFaultPoint)[keyof typeof OrderFaultPoint];

/** DI token of the function that ends the process for a `drop` rule (tests may replace it). */
export const ORDERS_CRASHER = Symbol('ORDERS_CRASHER');

/**
 * The orders fault points. Inert unless `FAULTS_ENABLED=true` (then the `FaultInjector` exists). `drop` kills the
 * process with SIGKILL (no shutdown, no answer, no rollback of what already committed); `delay` holds the step;
 * `status` fails it like any error would.
 */
@Injectable()
export class OrderFaults {
  private readonly logger = new Logger(OrderFaults.name);

  constructor(
    @Optional() @Inject(ORDERS_CRASHER) private readonly crash: () => void = sigkillSelf,
    @Optional() @Inject(FaultInjector) private readonly injector?: FaultInjector,
  ) {}

  /** Applies the first rule for `point`; never returns after a `drop` rule. */
  async trip(point: OrderFaultPoint, context: Record<string, string>): Promise<void> {
    if (this.injector === undefined) return;
    try {
      await this.injector.injectAt(point, { headers: context });
    } catch (error) {
      if (!(error instanceof FaultInjectedError) || error.rule.action !== 'drop') throw error;
      this.logger.warn({ msg: 'fault: killing the process', point, ...context });
      this.crash();
      // SIGKILL lands asynchronously: nothing after this point may run meanwhile.
      await new Promise<never>(() => {});
    }
  }
}

function sigkillSelf(): void {
  process.kill(process.pid, 'SIGKILL');
}
