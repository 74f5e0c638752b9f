import type { Database } from './database.js';
import type { Tables } from './tables.js';

/**
 * Every table of the schema, each after the tables its foreign keys point at: the order in which
 * rows can be inserted into an empty database. (test/migrate-to-postgres.test.ts checks that it
 * names every table the migrations make.)
 */
export const TABLES_IN_COPY_ORDER = [
  'accounts',
  'invitations',
  'services',
  'api_keys',
  'console_sessions',
  'sign_in_failures',
  'stream_tokens',
  'usage_counters',
  'service_monthly_calls',
  'face_people',
  'face_samples',
  'face_negatives',
  'unknown_groups',
  'unknown_faces',
  'known_plates',
  'memory_versions',
] as const satisfies readonly (keyof Tables)[];

export type TableName = (typeof TABLES_IN_COPY_ORDER)[number];

/** Rows per INSERT: well below PostgreSQL's 65,535 parameters for the widest table. */
const ROWS_PER_INSERT = 500;

/** Rows of each table of `db`, in copy order. */
export async function rowCounts(db: Database): Promise<Record<TableName, number>> {
  const counts = {} as Record<TableName, number>;
  for (const table of TABLES_IN_COPY_ORDER) {
    const { rows } = await db.selectFrom(table).select((eb) => eb.fn.countAll<string | number>().as('rows')).executeTakeFirstOrThrow();
    counts[table] = Number(rows);
  }
  return counts;
}

/**
 * Copies every row of every table of `from` into `to` (both at the same schema version, `to`
 * empty) in one transaction of `to`: it holds all of them or, when anything fails, none. Rows are
 * streamed, so a long usage history never sits in memory whole.
 */
export async function copyRows(from: Database, to: Database): Promise<Record<TableName, number>> {
  return to.transaction().execute(async (trx) => {
    const copied = {} as Record<TableName, number>;
    for (const table of TABLES_IN_COPY_ORDER) {
      let batch: Record<string, unknown>[] = [];
      let rows = 0;
      const insert = async () => {
        if (batch.length === 0) return;
        // Rows read from the same table of the same schema: the insert's columns are that table's own.
        await trx.insertInto(table).values(batch as never).execute();
        rows += batch.length;
        batch = [];
      };
      for await (const row of from.selectFrom(table).selectAll().stream(ROWS_PER_INSERT)) {
        batch.push(row);
        if (batch.length === ROWS_PER_INSERT) await insert();
      }
      await insert();
      copied[table] = rows;
    }
    return copied;
  });
}
