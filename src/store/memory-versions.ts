import type { Database } from './database.js';

/**
 * What a service remembers, each held in memory and versioned on its own, named by what keeps it
 * (a feature's, as `known-plates`): one name, one owner.
 */
type MemoryName = string;

/**
 * Raises the service's version of `memory` and returns the new one. Called in the transaction of
 * every write to that memory, so that the version and what it stands for commit together; as a
 * write, it also makes writers of one memory of one service wait for each other until commit.
 */
export async function bumpMemoryVersion(db: Database, serviceId: string, memory: MemoryName): Promise<number> {
  const row = await db
    .insertInto('memory_versions')
    .values({ service_id: serviceId, memory, version: 1 })
    .onConflict((conflict) => conflict.columns(['service_id', 'memory']).doUpdateSet((eb) => ({ version: eb('memory_versions.version', '+', 1) })))
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

/** The service's version of `memory`: one row read by its primary key; 0 before its first write. */
async function memoryVersion(db: Database, serviceId: string, memory: MemoryName): Promise<number> {
  const row = await db.selectFrom('memory_versions').select('version').where('service_id', '=', serviceId).where('memory', '=', memory).executeTakeFirst();
  return Number(row?.version ?? 0);
}

interface Held<T> {
  readonly version: number;
  readonly value: Promise<T>;
}

/**
 * What one memory of each service is, as this replica holds it: read from the database (and
 * decrypted) once per version, not once per call. A call reads the version (memoryVersion, one
 * row) and gets what is held when it is of that version, else loads it — once, however many calls
 * ask at the same moment. The version is read before the memory, and a write raises it in its
 * transaction, so what is held is never older than the version it is held under: a write that
 * commits between the two reads makes the next call load again.
 */
export class VersionedMemory<T> {
  readonly #held = new Map<string, Held<T>>();

  constructor(
    private readonly db: Database,
    private readonly memory: MemoryName,
  ) {}

  /**
   * The service's memory as it is now. `load` is handed what was held before (of an older
   * version), to reuse what did not change (a descriptor decrypted once stays decrypted). When the
   * database cannot be read (the version or the memory: it is away), what was held last is served,
   * whatever its version, so that a call is answered; with nothing held, the database's error.
   */
  async current(serviceId: string, load: (db: Database, previous: T | undefined) => Promise<T>): Promise<T> {
    const held = this.#held.get(serviceId);
    try {
      const version = await memoryVersion(this.db, serviceId, this.memory);
      return await this.#at(serviceId, version, () => this.#previous(held).then((previous) => load(this.db, previous)));
    } catch (error) {
      if (!held) throw error;
      return held.value;
    }
  }

  /**
   * Runs a write of this memory in a transaction: the version is raised first (writers of one
   * service's memory wait for each other from there), then `write` is handed what is held —
   * current, or loaded again inside the transaction when another replica wrote since — to change
   * it and the database together. Held under the new version once `write` returns; if the
   * transaction fails, nothing is held (the next call loads).
   */
  async write<R>(serviceId: string, load: (db: Database, previous: T | undefined) => Promise<T>, write: (tx: Database, held: T) => Promise<R>): Promise<R> {
    try {
      return await this.db.transaction().execute(async (tx) => {
        const version = await bumpMemoryVersion(tx, serviceId, this.memory);
        // Read once the version is raised: a write of this replica's that committed meanwhile left its memory held.
        const before = this.#held.get(serviceId);
        const previous = await this.#previous(before);
        const current = before?.version === version - 1 && previous !== undefined ? previous : await load(tx, previous);
        const result = await write(tx, current);
        this.#held.set(serviceId, { version, value: Promise.resolve(current) });
        return result;
      });
    } catch (error) {
      this.#held.delete(serviceId);
      throw error;
    }
  }

  #at(serviceId: string, version: number, load: () => Promise<T>): Promise<T> {
    const held = this.#held.get(serviceId);
    if (held && held.version === version) return held.value;
    const value = load();
    const entry = { version, value };
    this.#held.set(serviceId, entry);
    // A failed load is not held: the next call tries again.
    value.catch(() => {
      if (this.#held.get(serviceId) === entry) this.#held.delete(serviceId);
    });
    return value;
  }

  /** What was held, or undefined when its load failed. */
  async #previous(held: Held<T> | undefined): Promise<T | undefined> {
    return held?.value.catch(() => undefined);
  }
}
