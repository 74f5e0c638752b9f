import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/**
 * Whether a server runs on a data folder, known for sure: every server on the embedded SQLite
 * database holds a shared lock on `detectd.lock` in its data folder for as long as it runs, and
 * `detectd restore` (or `migrate-to-postgres`) takes it exclusively before it touches the
 * database. The lock is SQLite's own file lock (POSIX fcntl) on a file of its own: the kernel drops
 * it when the process ends, however it ends, so a crashed server leaves no stale lock, and no pid
 * file can name a process that is no longer detectd.
 */
export const lockFile = (dataDir: string) => path.join(dataDir, 'detectd.lock');

/** How long a starting server waits for a restore in progress to finish. */
const WAIT_FOR_RESTORE_MS = 30_000;

export interface HeldLock {
  release(): void;
}

/** Thrown when the lock cannot be had: a server holds it (for a restore), or a restore does (for a server). */
export class DataFolderBusy extends Error {}

/** The shared lock a server holds while it runs (several servers on one folder may hold it at once). */
export function holdServerLock(dataDir: string): HeldLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = new SqliteDatabase(lockFile(dataDir), { timeout: WAIT_FOR_RESTORE_MS });
  try {
    // A read transaction left open keeps SQLite's SHARED lock on the file until it ends.
    lock.exec('BEGIN');
    lock.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DataFolderBusy(`a restore into ${dataDir} is in progress (detectd restore holds ${lockFile(dataDir)}); start the server once it has finished`);
    }
    throw error;
  }
  return { release: () => lock.close() };
}

/**
 * The lock taken exclusively, for work that must not happen under a running server (replacing
 * its database); `DataFolderBusy` at once when a server holds it.
 */
export function lockOutServers(dataDir: string): HeldLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = new SqliteDatabase(lockFile(dataDir), { timeout: 0 });
  try {
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DataFolderBusy(`a detectd server is running on ${dataDir} (it holds ${lockFile(dataDir)}): stop it first`);
    }
    throw error;
  }
  return { release: () => lock.close() };
}
