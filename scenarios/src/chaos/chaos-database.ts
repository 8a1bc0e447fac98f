/**
 * What the chaos run reads from orders' own database and from the invoice queue after the traffic: the rows are
 * the effects it counts (the API shows the same data, but only the rows show a second order for one key).
 */
import { INVOICES_QUEUE } from '@retry-safe/contracts';
import { Queue } from 'bullmq';
import pg from 'pg';

/** A row of `order_payments`: a Charge applied to an order. */
export interface AppliedCharge {
  readonly orderId: string;
  readonly chargeId: string;
  readonly providerChargeId: string;
  readonly amount: number;
}

/** The rows of orders' database the checks need. */
export interface OrdersRows {
  /** Every order's id. */
  readonly orderIds: readonly string[];
  readonly applied: readonly AppliedCharge[];
}

/** Reads every order id and every applied charge. */
export async function readOrdersRows(databaseUrl: string): Promise<OrdersRows> {
  return withClient(databaseUrl, async (client) => {
    const orders = await client.query<{ id: string }>('SELECT id FROM orders');
    const applied = await client.query<{
      order_id: string;
      charge_id: string;
      provider_charge_id: string;
      amount: string;
    }>('SELECT order_id, charge_id, provider_charge_id, amount FROM order_payments');
    return {
      orderIds: orders.rows.map((row) => row.id),
      applied: applied.rows.map((row) => ({
        orderId: row.order_id,
        chargeId: row.charge_id,
        providerChargeId: row.provider_charge_id,
        // bigint: node-postgres reads it as a string.
        amount: Number(row.amount),
      })),
    };
  });
}

/** Outbox rows the relay has not published yet. */
export async function unpublishedOutboxRows(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM invoice_outbox WHERE published_at IS NULL',
    );
    return Number(result.rows[0]?.n ?? 0);
  });
}

/** Invoice jobs the worker has still to process (waiting, active, delayed for a retry). */
export async function pendingInvoiceJobs(redisUrl: string, prefix = 'bull'): Promise<number> {
  const url = new URL(redisUrl);
  const queue = new Queue(INVOICES_QUEUE, {
    connection: {
      host: url.hostname,
      port: Number(url.port || 6379),
      ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
      maxRetriesPerRequest: 1,
    },
    prefix,
  });
  try {
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  } finally {
    await queue.close();
  }
}

async function withClient<T>(databaseUrl: string, read: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await read(client);
  } finally {
    await client.end();
  }
}
