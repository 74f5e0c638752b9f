import fs from 'node:fs';
import type { Logger } from 'pino';
import type { StorageFailure } from './storage-failure.js';

/** Where the storage stands, for /readyz and the console's status page. */
export interface StorageState {
  readonly state: 'ok' | StorageFailure;
  /** When it failed (ISO time); absent while it works. */
  readonly since?: string;
  /** What failed and where, for the operator: the database, or the folder and its free space. */
  readonly reason?: string;
}

/** Space the data folder needs free again before a full disk is taken as writable (a write then confirms it). */
const WRITABLE_AGAIN_BYTES = 1024 * 1024;

interface StorageLocation {
  /** The database, for a person (`SQLite /data/detectd.sqlite`, a PostgreSQL URL without its password). */
  readonly database: string;
  /** The folder the embedded database writes to; absent on PostgreSQL, whose disk is the database server's. */
  readonly dataDir?: string;
}

function freeBytes(folder: string): number | undefined {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Whether the database answers and has room, as the queries find it: a failure is logged once when
 * it starts (a full disk with the folder and its free space), not once per call, and once again
 * when the storage works again. Any successful query ends an outage. Reads go on working on a full
 * disk, and so may a small write into pages SQLite holds already: the embedded database's full
 * disk ends when its folder has room again, PostgreSQL's with a successful write.
 */
export class StorageHealth {
  #state: StorageState = { state: 'ok' };
  #failedAt = 0;

  constructor(
    private readonly location: StorageLocation,
    private readonly logger?: Logger,
  ) {}

  get state(): StorageState {
    if (this.#state.state === 'full' && this.location.dataDir && (freeBytes(this.location.dataDir) ?? 0) >= WRITABLE_AGAIN_BYTES) this.#recovered();
    return this.#state;
  }

  failed(failure: StorageFailure, error: unknown): void {
    if (this.#state.state === failure) return;
    this.#failedAt = Date.now();
    const since = new Date(this.#failedAt).toISOString();
    const cause = (error as { message?: unknown }).message;
    if (failure === 'unavailable') {
      this.#state = { state: failure, since, reason: `${this.location.database} cannot be reached: ${String(cause)}` };
      this.logger?.error({ database: this.location.database, err: String(cause) }, 'database unavailable');
      return;
    }
    const folder = this.location.dataDir;
    const free = folder === undefined ? undefined : freeBytes(folder);
    this.#state = {
      state: failure,
      since,
      reason: folder === undefined ? `the disk of ${this.location.database} is full` : `no space left in ${folder} (${free ?? 'unknown'} bytes free)`,
    };
    this.logger?.error({ path: folder, free_bytes: free, database: this.location.database }, 'storage full');
  }

  /** A query succeeded: `wrote` when it changed data. */
  succeeded(wrote: boolean): void {
    if (this.#state.state === 'unavailable' || (this.#state.state === 'full' && wrote && this.location.dataDir === undefined)) this.#recovered();
  }

  #recovered(): void {
    this.logger?.info({ was: this.#state.state, seconds: (Date.now() - this.#failedAt) / 1000 }, 'storage works again');
    this.#state = { state: 'ok' };
  }
}
