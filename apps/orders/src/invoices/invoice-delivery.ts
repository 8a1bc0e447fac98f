import type { InvoiceJob } from '@retry-safe/contracts';
import type { Transaction } from 'kysely';
import type { OrdersDatabase } from '../database/orders-database.js';

/** The invoice request's own writes, in the transaction a delivery commits it in. */
export type RequestWrites = (trx: Transaction<OrdersDatabase>) => Promise<void>;

/**
 * How an invoice request's delivery reaches the queue. The design commits an outbox row with the request (the
 * relay publishes it); the outbox scenario's demonstration commits the request alone and publishes after.
 */
export interface InvoiceDelivery {
  /**
   * Commits the request (`writes`, in one transaction with what this design adds), calls `committed` right
   * after the commit (the fault point between the two), and delivers `job`.
   */
  deliver(job: InvoiceJob, writes: RequestWrites, committed: () => Promise<void>): Promise<void>;
}

/** DI token of the {@link InvoiceDelivery} in force (bound by the invoices module from the settings). */
export const INVOICE_DELIVERY = Symbol('INVOICE_DELIVERY');
