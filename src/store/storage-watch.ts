import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { isNothingToRollBack, StorageRefusal, storageFailureOf } from './storage-failure.js';
import type { StorageHealth } from './storage-health.js';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/**
 * `dialect` with every storage failure of every query, connection and transaction turned into a
 * StorageRefusal (503 `storage_unavailable` or 507 `storage_full`, for each door to answer in its
 * shape) and told to `health`; any other error passes on as it was. A rollback that fails because
 * the transaction is gone already (SQLite ends it itself on a full disk; a PostgreSQL connection
 * that broke ended it with it) is no failure of its own: the error that ended the transaction is
 * the one thrown, so nothing half done is ever hidden behind 'cannot rollback'.
 */
export function watchStorage(dialect: Dialect, health: StorageHealth): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => new WatchedDriver(dialect.createDriver(), health),
  };
}

class WatchedDriver implements Driver {
  constructor(
    private readonly driver: Driver,
    private readonly health: StorageHealth,
  ) {}

  init(): Promise<void> {
    return this.#watch(() => this.driver.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.#watch(() => this.driver.acquireConnection());
    return new WatchedConnection(connection, this.health, (work) => this.#watch(work));
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#watch(() => this.driver.beginTransaction(inner(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#watch(() => this.driver.commitTransaction(inner(connection)));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.driver.rollbackTransaction(inner(connection));
    } catch (error) {
      if (!isNothingToRollBack(error) && !storageFailureOf(error)) throw error;
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(inner(connection));
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }

  async #watch<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw refusalOf(error, this.health);
    }
  }
}

class WatchedConnection implements DatabaseConnection {
  constructor(
    readonly connection: DatabaseConnection,
    private readonly health: StorageHealth,
    private readonly watch: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.watch(() => this.connection.executeQuery<R>(compiledQuery));
    this.health.succeeded(WRITES.has(compiledQuery.query.kind));
    return result;
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.connection.streamQuery<R>(compiledQuery, chunkSize);
    } catch (error) {
      throw refusalOf(error, this.health);
    }
  }
}

/** The driver's own connection behind a watched one (Kysely hands the driver back what it acquired). */
const inner = (connection: DatabaseConnection) => (connection instanceof WatchedConnection ? connection.connection : connection);

/** A storage failure as the caller's refusal, told to `health`; any other error as it was. */
function refusalOf(error: unknown, health: StorageHealth): unknown {
  if (error instanceof StorageRefusal) return error;
  const failure = storageFailureOf(error);
  if (!failure) return error;
  health.failed(failure, error);
  return new StorageRefusal(failure, error);
}
