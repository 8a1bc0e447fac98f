import type { RuntimeSettingsDefinition } from '@retry-safe/app-shell/admin';
import { z } from 'zod';

/**
 * Where the processing record of an order's creation is kept. `transaction` is the design (the record commits with
 * the order); `redis` is a DEMONSTRATION of the design it replaces: the record in a separate store (Redis), so a
 * crash between the order's commit and the record's completion leaves an order its record does not know about.
 */
export const CreateRecordMode = {
  Transaction: 'transaction',
  Redis: 'redis',
} as const;
/** One of {@link CreateRecordMode}'s values. */
export type CreateRecordMode = (typeof CreateRecordMode)[keyof typeof CreateRecordMode];

/**
 * How a Charge is applied to its order once. `unique-constraint` is the design (the record for the key and the
 * charge's primary key decide, in the applying transaction); `read-then-write` is a DEMONSTRATION: a `SELECT` asks
 * whether the Charge is applied, and the amount is added when it said no, so two retries that both read before
 * either wrote add it twice.
 */
export const ApplyChargeMode = {
  UniqueConstraint: 'unique-constraint',
  ReadThenWrite: 'read-then-write',
} as const;
/** One of {@link ApplyChargeMode}'s values. */
export type ApplyChargeMode = (typeof ApplyChargeMode)[keyof typeof ApplyChargeMode];

/**
 * How a payment is kept within what its order owes. `reservation` is the design (the amount is reserved by one
 * conditional UPDATE before the charge, and a payment that does not fit is refused); `read-then-write` is a
 * DEMONSTRATION: the balance is read, the charge made if the read said it fits, so payments in parallel (each with
 * its own key) all read the same balance and all charge.
 */
export const BalanceCheckMode = {
  Reservation: 'reservation',
  ReadThenWrite: 'read-then-write',
} as const;
/** One of {@link BalanceCheckMode}'s values. */
export type BalanceCheckMode = (typeof BalanceCheckMode)[keyof typeof BalanceCheckMode];

/**
 * How an invoice request reaches the queue. `outbox` is the design (the delivery commits with the request, the
 * relay publishes it); `publish-after-commit` is a DEMONSTRATION: the request commits, then the job is added to the
 * queue, so a crash between the two loses the delivery.
 */
export const InvoicePublishMode = {
  Outbox: 'outbox',
  PublishAfterCommit: 'publish-after-commit',
} as const;
/** One of {@link InvoicePublishMode}'s values. */
export type InvoicePublishMode = (typeof InvoicePublishMode)[keyof typeof InvoicePublishMode];

/**
 * What a scenario may switch on a running orders process (`PUT /__config`, only with `FAULTS_ENABLED=true`). No
 * environment variable sets them: the wrong designs exist only as these labelled demonstrations.
 */
export interface OrdersSettings {
  readonly createRecord: CreateRecordMode;
  readonly applyCharge: ApplyChargeMode;
  readonly balanceCheck: BalanceCheckMode;
  readonly invoicePublish: InvoicePublishMode;
}

/** The designs orders runs with, always, outside a scenario's `PUT /__config`. */
export const ORDERS_DESIGNS: OrdersSettings = {
  createRecord: CreateRecordMode.Transaction,
  applyCharge: ApplyChargeMode.UniqueConstraint,
  balanceCheck: BalanceCheckMode.Reservation,
  invoicePublish: InvoicePublishMode.Outbox,
};

/**
 * Body of `PUT /__config`: `{"createRecord": "redis"}`, `{"applyCharge": "read-then-write"}`,
 * `{"balanceCheck": "read-then-write"}`, `{"invoicePublish": "publish-after-commit"}` (the demonstrations), or `{}`
 * for the designs.
 */
export const OrdersSettingsSchema = z.strictObject({
  createRecord: z.enum([CreateRecordMode.Transaction, CreateRecordMode.Redis]).optional(),
  applyCharge: z.enum([ApplyChargeMode.UniqueConstraint, ApplyChargeMode.ReadThenWrite]).optional(),
  balanceCheck: z.enum([BalanceCheckMode.Reservation, BalanceCheckMode.ReadThenWrite]).optional(),
  invoicePublish: z.enum([InvoicePublishMode.Outbox, InvoicePublishMode.PublishAfterCommit]).optional(),
});

/** The demonstration modes among `settings`, each with what it gives up (for the warning logged when set). */
export function demonstrationModes(settings: OrdersSettings): string[] {
  const modes: string[] = [];
  if (settings.createRecord === CreateRecordMode.Redis) {
    modes.push('createRecord=redis: the record of a new order is kept in Redis, outside its transaction');
  }
  if (settings.applyCharge === ApplyChargeMode.ReadThenWrite) {
    modes.push('applyCharge=read-then-write: a read decides whether a Charge is applied');
  }
  if (settings.balanceCheck === BalanceCheckMode.ReadThenWrite) {
    modes.push('balanceCheck=read-then-write: a read of the balance decides whether a payment is charged');
  }
  if (settings.invoicePublish === InvoicePublishMode.PublishAfterCommit) {
    modes.push('invoicePublish=publish-after-commit: invoice jobs are published after the commit, no outbox');
  }
  return modes;
}

/** orders' runtime settings: the designs at start-up, each switchable to its demonstration by a scenario. */
export function ordersSettings(): RuntimeSettingsDefinition<OrdersSettings> {
  return {
    schema: OrdersSettingsSchema,
    initial: ORDERS_DESIGNS,
    onReplace: (settings, _overrides, logger) => {
      for (const mode of demonstrationModes(settings)) {
        logger.warn({ msg: `${mode}: DEMONSTRATION MODE (PUT /__config). Never run this in production.` });
      }
    },
  };
}
