import { Kysely, Migrator, sql } from 'kysely';
import { postgresDialect } from './dialects/postgres.js';
import { sqliteDialect } from './dialects/sqlite.js';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './tables.js';

export type Database = Kysely<Tables>;

export interface DatabaseSettings {
  /** Folder of the embedded SQLite file, used when no `databaseUrl` is given. */
  readonly dataDir: string;
  /** `postgres://…` to use PostgreSQL instead of the embedded SQLite file. */
  readonly databaseUrl?: string;
}

/** Opens the configured database (PostgreSQL when a URL is given, else embedded SQLite) and brings its schema up to date. */
export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  const dialect = settings.databaseUrl ? postgresDialect(settings.databaseUrl) : sqliteDialect(settings.dataDir);
  const db = new Kysely<Tables>({ dialect });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

export async function migrate(db: Database): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

/** True when the database answers a trivial query. */
export async function databaseReachable(db: Database): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
