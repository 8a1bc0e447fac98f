import type { SqlQueryResult, SqlTransaction } from '../transactional.js';

/** The part of a Kysely `Transaction` (or `Kysely` instance) the adapter uses; no runtime import of Kysely. */
export interface KyselyExecutor {
  executeQuery(query: {
    readonly sql: string;
    readonly parameters: readonly unknown[];
    readonly query: {
      readonly kind: 'RawNode';
      readonly sqlFragments: readonly string[];
      readonly parameters: readonly never[];
    };
    readonly queryId: { readonly queryId: string };
  }): Promise<{ readonly rows: readonly unknown[]; readonly numAffectedRows?: bigint }>;
}

let queryIds = 0;

/**
 * Adapts a Kysely `Transaction` to {@link SqlTransaction}, for `coordinator.coordinateInTransaction`:
 *
 * ```ts
 * await db.transaction().execute((trx) =>
 *   coordinator.coordinateInTransaction(kyselyTransaction(trx), spec, async () =>
 *     trx.insertInto('orders').values(order).returningAll().executeTakeFirstOrThrow()));
 * ```
 * The statements run as raw compiled queries (what Kysely's `CompiledQuery.raw` builds), so Kysely's plugins see
 * them like any raw query.
 */
export function kyselyTransaction(trx: KyselyExecutor): SqlTransaction {
  return {
    async query(text: string, values: unknown[] = []): Promise<SqlQueryResult> {
      const result = await trx.executeQuery({
        sql: text,
        parameters: Object.freeze([...values]),
        query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
        queryId: { queryId: `retry-safe-${(queryIds++).toString(36)}` },
      });
      const affected = result.numAffectedRows;
      return { rows: result.rows, rowCount: affected === undefined ? result.rows.length : Number(affected) };
    },
  };
}
