import { DetectdError } from '../core/errors.js';

/** Why storage failed a query: the database cannot be reached, or the disk it writes to is full. */
export type StorageFailure = 'unavailable' | 'full';

/** How long a caller refused for either is told to wait before trying again. */
const RETRY_AFTER_SECONDS: Readonly<Record<StorageFailure, number>> = { unavailable: 5, full: 30 };

/** SQLSTATEs of a PostgreSQL server that is going away, starting, or out of connections (classes 08 and 57P, 53300, 53200). */
const POSTGRES_AWAY = /^(08...|57P0[1-4]|53[23]00)$/;
/** Node's errors of a socket that could not connect or was cut off. */
const SOCKET_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** What pg throws, without a code, for a connection that ended, timed out or broke earlier. */
const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

/**
 * The one classification of storage errors, for both engines: which failures mean the storage
 * went away or filled up (and will come back), rather than a bug or a constraint. Anything else
 * is undefined, and passes on as it was.
 */
export function storageFailureOf(error: unknown): StorageFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === '53100') return 'full';
  if (typeof code === 'string' && (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || SOCKET_FAILURES.has(code) || POSTGRES_AWAY.test(code))) return 'unavailable';
  if (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) return 'unavailable';
  return undefined;
}

/** True when `error` is SQLite's answer to a rollback of a transaction it had already rolled back itself (as it does on SQLITE_FULL). */
export function isNothingToRollBack(error: unknown): boolean {
  return (error as { message?: unknown } | null)?.message === 'cannot rollback - no transaction is active';
}

/** A caller's answer to a storage failure: 503 `storage_unavailable` or 507 `storage_full`, with when to try again. */
export class StorageRefusal extends DetectdError {
  constructor(
    readonly failure: StorageFailure,
    cause: unknown,
  ) {
    super(
      failure === 'full' ? 'storage_full' : 'storage_unavailable',
      failure === 'full'
        ? `the server's disk is full: nothing of this call was saved; retry after ${RETRY_AFTER_SECONDS.full} s, once space is freed (the operator sees where on /readyz)`
        : `the database cannot be reached for the moment: nothing this call would change is acknowledged; retry after ${RETRY_AFTER_SECONDS.unavailable} s`,
      RETRY_AFTER_SECONDS[failure],
    );
    this.cause = cause;
  }
}
