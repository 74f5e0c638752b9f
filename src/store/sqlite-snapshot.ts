import SqliteDatabase from 'better-sqlite3';

/** What a copy of the embedded database holds, as far as a person checking a backup cares. */
export interface SnapshotSummary {
  /** The schema migrations applied to it, in order (src/store/migrations/). */
  readonly migrations: readonly string[];
  readonly accounts: number;
  readonly services: number;
}

/** Every page of the source in one step of SQLite's online backup: see snapshotDatabase. */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of the SQLite database `source` in the new file `into`, taken while servers
 * keep writing to it, by SQLite's online backup API (better-sqlite3's `backup`). The pages are
 * copied in one step, that is inside one read transaction: the copy is the database as it was when
 * that step began, with every write committed before (those still in the WAL file included), and
 * writers are not held up meanwhile (WAL mode). Several smaller steps would let other processes'
 * writes in between, which restarts the copy — forever, under a steady stream of writes.
 */
export async function snapshotDatabase(source: string, into: string): Promise<SnapshotSummary> {
  const database = new SqliteDatabase(source, { fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    await database.backup(into, { progress: () => ALL_PAGES });
  } finally {
    database.close();
  }
  return checkSnapshot(into);
}

/** Thrown for a file that is not a whole detectd database. */
export class SnapshotRefused extends Error {}

/**
 * What the copy `file` holds, once SQLite found it whole (`integrity_check`) and it is a detectd
 * database (it has the migrations table); refused with `SnapshotRefused` otherwise.
 */
export function checkSnapshot(file: string): SnapshotSummary {
  let database: SqliteDatabase.Database;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new SnapshotRefused(`not a SQLite database: ${(error as Error).message}`, { cause: error });
  }
  try {
    const integrity = database.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new SnapshotRefused(`the database is damaged (SQLite integrity_check: ${String(integrity)})`);
    const hasMigrations = database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
    if (!hasMigrations) throw new SnapshotRefused('not a detectd database (it has no kysely_migration table)');
    const migrations = (database.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((row) => row.name);
    const count = (table: string) => (database.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { migrations, accounts: count('accounts'), services: count('services') };
  } catch (error) {
    if (error instanceof SnapshotRefused) throw error;
    throw new SnapshotRefused(`not a readable detectd database: ${(error as Error).message}`, { cause: error });
  } finally {
    database.close();
  }
}
