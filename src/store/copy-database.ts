import type { Database } from './database.js';

/** Any table by its name, its rows as they are: the store's and the features' alike. */
type AnyTables = Record<string, Record<string, unknown>>;

/** Rows per INSERT: well below PostgreSQL's 65,535 parameters for the widest table. */
const ROWS_PER_INSERT = 500;

/** Rows of each of `tables` (Schema.tables) of `db`, in copy order. */
export async function rowCounts(db: Database, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await db.withTables<AnyTables>().selectFrom(table).select((eb) => eb.fn.countAll<string | number>().as('rows')).executeTakeFirstOrThrow();
    counts[table] = Number(rows);
  }
  return counts;
}

/**
 * Copies every row of each of `tables` (Schema.tables, in copy order) of `from` into `to` (both at
 * the same schema version, `to` empty) in one transaction of `to`: it holds all of them or, when
 * anything fails, none. Rows are streamed, so a long usage history never sits in memory whole.
 */
export async function copyRows(from: Database, to: Database, tables: readonly string[]): Promise<Record<string, number>> {
  return to.withTables<AnyTables>().transaction().execute(async (trx) => {
    const copied: Record<string, number> = {};
    for (const table of tables) {
      let batch: Record<string, unknown>[] = [];
      let rows = 0;
      const insert = async () => {
        if (batch.length === 0) return;
        // Rows read from the same table of the same schema: the insert's columns are that table's own.
        await trx.insertInto(table).values(batch as never).execute();
        rows += batch.length;
        batch = [];
      };
      for await (const row of from.withTables<AnyTables>().selectFrom(table).selectAll().stream(ROWS_PER_INSERT)) {
        batch.push(row);
        if (batch.length === ROWS_PER_INSERT) await insert();
      }
      await insert();
      copied[table] = rows;
    }
    return copied;
  });
}
