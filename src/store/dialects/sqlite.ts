import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Dialect } from 'kysely';
import { SqliteDialect } from '../kysely.js';

/** The embedded database's file in the data folder. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, 'detectd.sqlite');

/**
 * The embedded database: one SQLite file in the data folder (WAL mode, foreign keys on). Deleted
 * rows are overwritten with zeros (secure_delete): deleted biometric data's ciphertext does not linger in
 * the file's free pages.
 */
export function sqliteDialect(dataDir: string): Dialect {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(sqliteFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('secure_delete = ON');
  return new SqliteDialect({ database: sqlite });
}
