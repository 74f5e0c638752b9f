import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './tables.js';

export type Database = Kysely<Tables>;

export interface DatabaseSettings {
  /** Folder of the embedded SQLite file. */
  readonly dataDir: string;
}

/** Opens the embedded SQLite database (WAL mode, foreign keys on) and brings its schema up to date. */
export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  fs.mkdirSync(settings.dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(path.join(settings.dataDir, 'detectd.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrate(db);
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
