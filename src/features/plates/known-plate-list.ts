import crypto from 'node:crypto';
import type { Database } from '../../store/database.js';
import { bumpMemoryVersion, VersionedMemory } from '../../store/memory-versions.js';
import { isUniqueViolation } from '../../store/unique-violation.js';
import { DEFAULT_KNOWN_PLATE_DISTANCE, type KnownPlateMatch, MAX_KNOWN_PLATE_DISTANCE, plateKey, plateMatcher, plateText } from './plate-match.js';

/** A known plate as listed. */
export interface KnownPlate {
  readonly id: string;
  /** As its owner wrote it, upper-cased without separators. */
  readonly plate: string;
  readonly name: string;
  /** ISO-8601 UTC. */
  readonly created: string;
}

/** A plate to add to a service's list. */
export interface NewKnownPlate {
  readonly plate: string;
  readonly name: string;
}

/** What the licence-plate task and the routes and cards that manage known plates need of the list. */
export interface KnownPlates {
  list(serviceId: string): Promise<KnownPlate[]>;
  add(serviceId: string, plates: readonly NewKnownPlate[]): Promise<KnownPlate[]>;
  remove(serviceId: string, idOrPlate: string): Promise<boolean>;
  distance(serviceId: string): Promise<number>;
  setDistance(serviceId: string, distance: number | null): Promise<void>;
  matcher(serviceId: string): Promise<((read: string) => KnownPlateMatch | undefined) | undefined>;
}

export class KnownPlateError extends Error {
  constructor(
    readonly code: 'invalid_plate' | 'invalid_name' | 'invalid_distance' | 'plate_exists',
    message: string,
  ) {
    super(message);
  }
}

/** The longest plate worth listing: real plates have at most about 10 characters. */
const MAX_PLATE_LENGTH = 16;
const MAX_NAME_LENGTH = 200;
/** The most plates one service may list: every read is compared with each. */
export const MAX_KNOWN_PLATES = 10_000;
/** Rows per INSERT: well below SQLite's and PostgreSQL's bound on a statement's parameters. */
const ROWS_PER_INSERT = 1000;

function checkedPlate(plate: string): string {
  const text = plateText(plate);
  if (text.length === 0 || text.length > MAX_PLATE_LENGTH || !/^[\p{L}\p{N}]+$/u.test(text)) {
    throw new KnownPlateError('invalid_plate', `a plate is 1 to ${MAX_PLATE_LENGTH} letters and digits (spaces, dashes and dots between them are dropped): "${plate.slice(0, 40)}" is not`);
  }
  return text;
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  // \p{Cc}: every control character, C1 as well as C0 and DEL.
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(trimmed)) {
    throw new KnownPlateError('invalid_name', `a known plate's name is 1 to ${MAX_NAME_LENGTH} characters, no control characters`);
  }
  return trimmed;
}

type PlateMatcher = (read: string) => KnownPlateMatch | undefined;

/** The tables of known plates (migrations/0015-known-plates.ts): the store's tables know nothing of them. A type, not an interface: Kysely's withTables takes a record. */
type KnownPlateTables = {
  /** A licence-plate service's known plates, each with a name. */
  known_plates: {
    id: string;
    service_id: string;
    /** The plate as its owner wrote it. */
    plate: string;
    /** The plate as matched (plate-match.ts plateKey): unique within the service. */
    plate_key: string;
    name: string;
    created_at: string;
  };
  services: {
    /** Licence-plate services: how many characters a read may differ from a known plate and still match it; null: the default (plate-match.ts). */
    known_plate_distance: number | null;
  };
};

/** `db` (the database, or a transaction on it) with the known plates' tables. */
const plateTables = <Db extends Pick<Database, 'withTables'>>(db: Db) => db.withTables<KnownPlateTables>();

/** The known plates' tables, in the order their rows can be copied (Feature.tables). */
export const KNOWN_PLATE_TABLES = ['known_plates'] as const satisfies readonly (keyof KnownPlateTables)[];

/**
 * Each licence-plate service's known plates and match distance in the database (table
 * `known_plates`, `services.known_plate_distance`), held in memory as a matcher (each plate's key
 * made once) and kept current on every replica: each edit raises the service's known-plates
 * version in its transaction, and each image's match reads that version first, so an edit on one
 * replica holds on all at the next image.
 */
export class KnownPlateList implements KnownPlates {
  readonly #memory: VersionedMemory<PlateMatcher | undefined>;

  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#memory = new VersionedMemory(db, 'known-plates');
  }

  /** The service's known plates, by plate. */
  async list(serviceId: string): Promise<KnownPlate[]> {
    const rows = await plateTables(this.db).selectFrom('known_plates').select(['id', 'plate', 'name', 'created_at']).where('service_id', '=', serviceId).orderBy('plate_key').execute();
    return rows.map((row) => ({ id: row.id, plate: row.plate, name: row.name, created: row.created_at }));
  }

  /**
   * Adds the plates, all or none: `invalid_plate`/`invalid_name` for a bad one (or past
   * MAX_KNOWN_PLATES), `plate_exists` for one the service lists already (look-alikes counting as
   * equal) or listed twice in `plates`.
   */
  async add(serviceId: string, plates: readonly NewKnownPlate[]): Promise<KnownPlate[]> {
    const created = this.now().toISOString();
    const rows = plates.map((entry) => {
      const plate = checkedPlate(entry.plate);
      return { id: crypto.randomUUID(), service_id: serviceId, plate, plate_key: plateKey(plate), name: checkedName(entry.name), created_at: created };
    });
    const keys = new Set<string>();
    for (const row of rows) {
      if (keys.has(row.plate_key)) throw new KnownPlateError('plate_exists', `"${row.plate}" is listed twice (O and 0, I and 1 count as one character)`);
      keys.add(row.plate_key);
    }
    if (rows.length === 0) return [];
    try {
      // The insert first: on SQLite a transaction that reads first cannot wait for another writer (SQLITE_BUSY).
      return await this.db.transaction().execute(async (tx) => {
        for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) await plateTables(tx).insertInto('known_plates').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
        await bumpMemoryVersion(tx, serviceId, 'known-plates');
        const { listed } = await plateTables(tx).selectFrom('known_plates').select((eb) => eb.fn.countAll<number | string>().as('listed')).where('service_id', '=', serviceId).executeTakeFirstOrThrow();
        if (Number(listed) > MAX_KNOWN_PLATES) throw new KnownPlateError('invalid_plate', `a service lists at most ${MAX_KNOWN_PLATES} known plates`);
        return rows.map((row) => ({ id: row.id, plate: row.plate, name: row.name, created: row.created_at }));
      });
    } catch (error) {
      // Listed already, or added by another call at the same moment: the unique (service_id, plate_key) refused it.
      if (!isUniqueViolation(error, 'known_plates', ['service_id', 'plate_key'])) throw error;
      const listed = await plateTables(this.db).selectFrom('known_plates').select(['plate', 'plate_key']).where('service_id', '=', serviceId).execute();
      const taken = listed.find((row) => keys.has(row.plate_key));
      throw new KnownPlateError('plate_exists', `the service already lists ${taken ? `"${taken.plate}"` : 'one of these plates'} (O and 0, I and 1 count as one character): remove it first`);
    }
  }

  /** Removes the known plate of this id, or of this plate (look-alikes counting as equal); false when the service lists no such one. */
  async remove(serviceId: string, idOrPlate: string): Promise<boolean> {
    const result = await this.db.transaction().execute(async (tx) => {
      const deleted = await plateTables(tx)
        .deleteFrom('known_plates')
        .where('service_id', '=', serviceId)
        .where((eb) => eb.or([eb('id', '=', idOrPlate), eb('plate_key', '=', plateKey(idOrPlate))]))
        .executeTakeFirst();
      await bumpMemoryVersion(tx, serviceId, 'known-plates');
      return deleted;
    });
    return Number(result.numDeletedRows) > 0;
  }

  /** How many characters a read may differ from a known plate: the service's own, else DEFAULT_KNOWN_PLATE_DISTANCE. */
  async distance(serviceId: string, db: Database = this.db): Promise<number> {
    const row = await plateTables(db).selectFrom('services').select('known_plate_distance').where('id', '=', serviceId).executeTakeFirst();
    return row?.known_plate_distance ?? DEFAULT_KNOWN_PLATE_DISTANCE;
  }

  /** Sets the service's own distance, a whole number from 0 to MAX_KNOWN_PLATE_DISTANCE; null returns it to the default. */
  async setDistance(serviceId: string, distance: number | null): Promise<void> {
    if (distance !== null && !(Number.isInteger(distance) && distance >= 0 && distance <= MAX_KNOWN_PLATE_DISTANCE)) {
      throw new KnownPlateError('invalid_distance', `the known-plate distance is a whole number of characters from 0 to ${MAX_KNOWN_PLATE_DISTANCE}`);
    }
    await this.db.transaction().execute(async (tx) => {
      await plateTables(tx).updateTable('services').set({ known_plate_distance: distance }).where('id', '=', serviceId).execute();
      await bumpMemoryVersion(tx, serviceId, 'known-plates');
    });
  }

  /** The service's list and distance as they are now, to match the plates of one image (the list last read when the database is away); undefined when it lists none. */
  matcher(serviceId: string): Promise<PlateMatcher | undefined> {
    return this.#memory.current(serviceId, async (db) => {
      const [known, distance] = await Promise.all([plateTables(db).selectFrom('known_plates').select(['plate', 'name']).where('service_id', '=', serviceId).execute(), this.distance(serviceId, db)]);
      return known.length === 0 ? undefined : plateMatcher(known, distance);
    });
  }
}
