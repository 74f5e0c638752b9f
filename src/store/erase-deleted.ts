import { SqliteAdapter, sql } from './kysely.js';
import type { Database } from './database.js';

/**
 * After rows of biometric data are deleted, their bytes gone from the disk too. On SQLite the
 * deletion itself zeroes the pages (secure_delete, dialects/sqlite.ts), but the write-ahead log
 * still holds earlier copies of them until a checkpoint: it is checkpointed and truncated now.
 * PostgreSQL reclaims dead rows when it vacuums them (the docs of a feature that deletes such rows say what that means).
 */
export async function eraseDeleted(db: Database): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}
