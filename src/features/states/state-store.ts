import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { bumpMemoryVersion, VersionedMemory } from '../../store/memory-versions.js';
import type { Tables } from '../../store/tables.js';
import type { BoundingBox } from '../../tasks/finding.js';
import type { Point } from '../../vision/image.js';
import type { StateExamples } from './nearest-state.js';
import { type DrawnRegion, RegionRefused } from './region-shape.js';

/** The slice's tables, beside the store's own (Kysely's withTables: the store's Tables knows no feature). */
type StatesTables = {
  state_regions: { id: string; service_id: string; source_id: string; name: string; box: string; polygon: string | null; created_at: string };
  state_examples: { id: string; region_id: string; state: string; embedding: string; embedder: string | null; thumbnail: string; created_at: string };
};

type StatesDatabase = Kysely<Tables & StatesTables>;

/** The slice's tables in the order their rows can be inserted (Feature.tables: what migrate-to-postgres copies). */
export const STATE_TABLES = ['state_regions', 'state_examples'] as const satisfies readonly (keyof StatesTables)[];

/** The most regions one source may have: each is embedded on every frame. */
export const MAX_REGIONS = 200;
/** The most examples of one state of one region: each is compared with the region on every frame. */
export const MAX_EXAMPLES_PER_STATE = 100;

/** A region with what it was taught, as listed. */
export interface ListedRegion extends DrawnRegion {
  /** Examples per state. */
  readonly examples: Readonly<Record<string, number>>;
}

/** One state's examples of a region embedded by one embedder (state-embedder.ts; null: kept before examples recorded theirs). */
export interface TaughtState extends StateExamples {
  readonly embedder: string | null;
}

/** A region ready to judge: its shape and its examples per state and embedder. */
export interface TaughtRegion extends DrawnRegion {
  readonly states: readonly TaughtState[];
}

/** One example as listed: which region and state, the embedder that embedded it, when, and a small JPEG of the region then (base64). */
export interface ListedExample {
  readonly id: string;
  readonly region: string;
  readonly state: string;
  readonly embedder: string | null;
  readonly created: string;
  readonly thumbnail: string;
}

/** An example to keep: the region's name, its state, its embedding in that frame, the embedder that made it (state-embedder.ts) and a thumbnail (base64 JPEG). */
export interface NewExample {
  readonly region: string;
  readonly state: string;
  readonly embedding: Float32Array;
  readonly embedder: string;
  readonly thumbnail: string;
}

export class RegionNotFound extends Error {}

const encodeVector = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

function shapeOf(row: { name: string; box: string; polygon: string | null }): DrawnRegion {
  const box = JSON.parse(row.box) as BoundingBox;
  return row.polygon === null ? { name: row.name, box } : { name: row.name, box, polygon: JSON.parse(row.polygon) as Point[] };
}

/**
 * Each states service's regions per source and their taught examples, in the database (tables
 * `state_regions`, `state_examples`), held in memory per service as ready-to-judge regions and
 * kept current on every replica through the service's `states` memory version (store/memory-versions.ts).
 */
export class StateStore {
  readonly #base: Database;
  readonly #db: StatesDatabase;
  readonly #memory: VersionedMemory<Map<string, TaughtRegion[]>>;

  constructor(
    db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#base = db;
    this.#db = db.withTables<StatesTables>();
    this.#memory = new VersionedMemory(db, 'states');
  }

  /** The source's regions, by name, with their example counts per state. */
  async regions(serviceId: string, sourceId: string): Promise<ListedRegion[]> {
    const rows = await this.#db.selectFrom('state_regions').select(['id', 'name', 'box', 'polygon']).where('service_id', '=', serviceId).where('source_id', '=', sourceId).orderBy('name').execute();
    const counts = await this.#db
      .selectFrom('state_examples')
      .innerJoin('state_regions', 'state_regions.id', 'state_examples.region_id')
      .select(['state_examples.region_id', 'state_examples.state', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('state_regions.service_id', '=', serviceId)
      .where('state_regions.source_id', '=', sourceId)
      .groupBy(['state_examples.region_id', 'state_examples.state'])
      .execute();
    return rows.map((row) => ({ ...shapeOf(row), examples: Object.fromEntries(counts.filter((count) => count.region_id === row.id).map((count) => [count.state, Number(count.count)])) }));
  }

  /** Draws the regions on the source: a new name is added, a drawn one redrawn (its examples, taught on its old shape, forgotten). RegionRefused past MAX_REGIONS or for a name given twice. */
  async draw(serviceId: string, sourceId: string, regions: readonly DrawnRegion[]): Promise<void> {
    const names = new Set(regions.map((region) => region.name));
    if (names.size < regions.length) throw new RegionRefused('a region name is given twice');
    const created = this.now().toISOString();
    await this.#write(serviceId, async (tx) => {
      await tx.deleteFrom('state_regions').where('service_id', '=', serviceId).where('source_id', '=', sourceId).where('name', 'in', [...names]).execute();
      const { count } = await tx.selectFrom('state_regions').select((eb) => eb.fn.countAll<number | string>().as('count')).where('service_id', '=', serviceId).where('source_id', '=', sourceId).executeTakeFirstOrThrow();
      if (Number(count) + regions.length > MAX_REGIONS) throw new RegionRefused(`a source has at most ${MAX_REGIONS} regions; it has ${count} besides these ${regions.length}`);
      const rows = regions.map((region) => ({ id: crypto.randomUUID(), service_id: serviceId, source_id: sourceId, name: region.name, box: JSON.stringify(region.box), polygon: region.polygon ? JSON.stringify(region.polygon) : null, created_at: created }));
      if (rows.length > 0) await tx.insertInto('state_regions').values(rows).execute();
    });
  }

  /** Removes the region and its examples; false when the source has no region of that name. */
  async remove(serviceId: string, sourceId: string, name: string): Promise<boolean> {
    const result = await this.#write(serviceId, (tx) => tx.deleteFrom('state_regions').where('service_id', '=', serviceId).where('source_id', '=', sourceId).where('name', '=', name).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }

  /** The source's regions of these names, to embed a frame's before teaching it; RegionNotFound names the first the source lacks. */
  async shapes(serviceId: string, sourceId: string, names: readonly string[]): Promise<DrawnRegion[]> {
    const rows = names.length === 0 ? [] : await this.#db.selectFrom('state_regions').select(['name', 'box', 'polygon']).where('service_id', '=', serviceId).where('source_id', '=', sourceId).where('name', 'in', [...names]).execute();
    const byName = new Map(rows.map((row) => [row.name, shapeOf(row)]));
    return names.map((name) => {
      const shape = byName.get(name);
      if (!shape) throw new RegionNotFound(`the source "${sourceId}" has no region "${name}"`);
      return shape;
    });
  }

  /** Keeps the examples; RegionRefused past MAX_EXAMPLES_PER_STATE. Returns them as listed. */
  async teach(serviceId: string, sourceId: string, examples: readonly NewExample[]): Promise<ListedExample[]> {
    const created = this.now().toISOString();
    return this.#write(serviceId, async (tx) => {
      const regions = await tx.selectFrom('state_regions').select(['id', 'name']).where('service_id', '=', serviceId).where('source_id', '=', sourceId).execute();
      const idOf = new Map(regions.map((row) => [row.name, row.id]));
      const rows = examples.map((example) => {
        const regionId = idOf.get(example.region);
        if (!regionId) throw new RegionNotFound(`the source "${sourceId}" has no region "${example.region}"`);
        return { id: crypto.randomUUID(), region_id: regionId, state: example.state, embedding: encodeVector(example.embedding), embedder: example.embedder, thumbnail: example.thumbnail, created_at: created };
      });
      if (rows.length > 0) await tx.insertInto('state_examples').values(rows).execute();
      for (const row of rows) {
        const { count } = await tx.selectFrom('state_examples').select((eb) => eb.fn.countAll<number | string>().as('count')).where('region_id', '=', row.region_id).where('state', '=', row.state).executeTakeFirstOrThrow();
        if (Number(count) > MAX_EXAMPLES_PER_STATE) throw new RegionRefused(`a region keeps at most ${MAX_EXAMPLES_PER_STATE} examples of a state: remove some of "${row.state}" first`);
      }
      const nameOf = new Map(regions.map((row) => [row.id, row.name]));
      return rows.map((row) => ({ id: row.id, region: nameOf.get(row.region_id)!, state: row.state, embedder: row.embedder, created: row.created_at, thumbnail: row.thumbnail }));
    });
  }

  /** The source's examples (of one region when named), oldest first. */
  async examples(serviceId: string, sourceId: string, region?: string): Promise<ListedExample[]> {
    let query = this.#db
      .selectFrom('state_examples')
      .innerJoin('state_regions', 'state_regions.id', 'state_examples.region_id')
      .select(['state_examples.id', 'state_regions.name', 'state_examples.state', 'state_examples.embedder', 'state_examples.created_at', 'state_examples.thumbnail'])
      .where('state_regions.service_id', '=', serviceId)
      .where('state_regions.source_id', '=', sourceId);
    if (region !== undefined) query = query.where('state_regions.name', '=', region);
    const rows = await query.orderBy('state_examples.created_at').orderBy('state_examples.id').execute();
    return rows.map((row) => ({ id: row.id, region: row.name, state: row.state, embedder: row.embedder, created: row.created_at, thumbnail: row.thumbnail }));
  }

  /** Removes one example of the service; false when it has none of that id. */
  async forget(serviceId: string, exampleId: string): Promise<boolean> {
    const result = await this.#write(serviceId, (tx) =>
      tx
        .deleteFrom('state_examples')
        .where('id', '=', exampleId)
        .where('region_id', 'in', (eb) => eb.selectFrom('state_regions').select('id').where('service_id', '=', serviceId))
        .executeTakeFirst(),
    );
    return Number(result.numDeletedRows) > 0;
  }

  /** The service's named sources (cameras) that have regions, sorted: the unnamed one (`""`) is left out. */
  async sources(serviceId: string): Promise<string[]> {
    const all = await this.#memory.current(serviceId, (db) => this.#load(db, serviceId));
    return [...all.keys()].filter((source) => source !== '').sort();
  }

  /** The service's regions of `sourceId`, ready to judge, as they are now (what was last read when the database is away). */
  async taught(serviceId: string, sourceId: string): Promise<readonly TaughtRegion[]> {
    const all = await this.#memory.current(serviceId, (db) => this.#load(db, serviceId));
    return all.get(sourceId) ?? [];
  }

  async #load(db: Database, serviceId: string): Promise<Map<string, TaughtRegion[]>> {
    const tables = db.withTables<StatesTables>();
    const regions = await tables.selectFrom('state_regions').select(['id', 'source_id', 'name', 'box', 'polygon']).where('service_id', '=', serviceId).orderBy('name').execute();
    const examples = await tables
      .selectFrom('state_examples')
      .innerJoin('state_regions', 'state_regions.id', 'state_examples.region_id')
      .select(['state_examples.region_id', 'state_examples.state', 'state_examples.embedder', 'state_examples.embedding'])
      .where('state_regions.service_id', '=', serviceId)
      .execute();
    const bySource = new Map<string, TaughtRegion[]>();
    for (const region of regions) {
      const own = examples.filter((example) => example.region_id === region.id);
      // One group per state and embedder: vectors of two embedders are never compared.
      const groups = new Map(own.map((example) => [JSON.stringify([example.state, example.embedder]), { state: example.state, embedder: example.embedder }]));
      const states = [...groups.values()]
        .sort((a, b) => (a.state < b.state ? -1 : a.state > b.state ? 1 : 0))
        .map(({ state, embedder }) => {
          const vectors = own.filter((example) => example.state === state && example.embedder === embedder).map((example) => decodeVector(example.embedding));
          const flat = new Float32Array(vectors.reduce((sum, vector) => sum + vector.length, 0));
          vectors.reduce((offset, vector) => (flat.set(vector, offset), offset + vector.length), 0);
          return { state, embedder, embeddings: flat };
        });
      bySource.set(region.source_id, [...(bySource.get(region.source_id) ?? []), { ...shapeOf(region), states }]);
    }
    return bySource;
  }

  /** A write in a transaction that raises the service's `states` version, so every replica loads afresh. */
  #write<R>(serviceId: string, write: (tx: StatesDatabase) => Promise<R>): Promise<R> {
    return this.#base.transaction().execute(async (tx) => {
      // The version first: writers of one service's states wait for each other from here (on SQLite a transaction that reads first cannot wait: SQLITE_BUSY).
      await bumpMemoryVersion(tx, serviceId, 'states');
      return write(tx.withTables<StatesTables>());
    });
  }
}
