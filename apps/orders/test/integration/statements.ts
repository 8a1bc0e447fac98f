import { jest } from '@jest/globals';
import pg from 'pg';

/**
 * A query as a label: a named statement by its name (the idempotency store's `idem_<table hash>_<change>` as
 * `idem:<change>`), anything else by its text (`BEGIN`, `COMMIT`).
 */
function labelOf(query: unknown): string {
  const { name, text } = (typeof query === 'string' ? { text: query } : query) as {
    name?: string;
    text?: string;
  };
  return (name ?? text ?? '?').replace(/^idem_[0-9a-f]{16}_/, 'idem:');
}

/**
 * Runs `during` with every query of this process' node-postgres clients (the app's pool among them) recorded, and
 * answers the transactions, `BEGIN` to `COMMIT` or `ROLLBACK` on one client, that ran a statement labelled
 * `marker`: what one call cost in the database, whatever else the app runs meanwhile (the relay, the sweeps).
 */
export async function transactionsWith(marker: string, during: () => Promise<unknown>): Promise<string[][]> {
  const spy = jest.spyOn(pg.Client.prototype, 'query');
  const byClient = new Map<unknown, string[]>();
  try {
    await during();
    // Read before the restore, which clears them.
    spy.mock.calls.forEach((args, i) => {
      const client = spy.mock.contexts[i];
      byClient.set(client, [...(byClient.get(client) ?? []), labelOf(args[0])]);
    });
  } finally {
    spy.mockRestore();
  }
  const transactions: string[][] = [];
  for (const labels of byClient.values()) {
    let open: string[] | undefined;
    for (const label of labels) {
      if (label === 'BEGIN') open = [];
      open?.push(label);
      if ((label === 'COMMIT' || label === 'ROLLBACK') && open !== undefined) {
        if (open.includes(marker)) transactions.push(open);
        open = undefined;
      }
    }
  }
  return transactions;
}

/**
 * Runs `during` with every query of this process' node-postgres clients recorded, and answers the labels (see
 * `labelOf`) that match `pattern`, in order, each with whether it ran inside a `BEGIN` .. `COMMIT`/`ROLLBACK` of
 * its client: e.g. that a fresh key's write was one statement outside any transaction.
 */
export async function statementsWith(
  pattern: RegExp,
  during: () => Promise<unknown>,
): Promise<Array<{ label: string; inTransaction: boolean }>> {
  const spy = jest.spyOn(pg.Client.prototype, 'query');
  const seen: Array<{ label: string; inTransaction: boolean }> = [];
  try {
    await during();
    const open = new Map<unknown, boolean>();
    spy.mock.calls.forEach((args, i) => {
      const client = spy.mock.contexts[i];
      const label = labelOf(args[0]);
      if (label === 'BEGIN') open.set(client, true);
      if (pattern.test(label)) seen.push({ label, inTransaction: open.get(client) === true });
      if (label === 'COMMIT' || label === 'ROLLBACK') open.set(client, false);
    });
  } finally {
    spy.mockRestore();
  }
  return seen;
}
