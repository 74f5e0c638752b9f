import type { Database } from '../../../store/database.js';
import { bumpMemoryVersion } from '../../../store/memory-versions.js';
import { faceTables } from './face-tables.js';
import { checkName, ensurePerson, nameKey } from './face-gallery.js';

/** One registered face of a person (a face_samples row): CompreFace's example, its id CompreFace's `image_id`. */
interface FaceExample {
  readonly id: string;
  /** Whose it is: the person's name. */
  readonly name: string;
}

/** One page of a service's examples, and how many there are in all. */
interface ExamplePage {
  readonly examples: readonly FaceExample[];
  readonly total: number;
}

/**
 * A face service's gallery seen example by example and person by person, as CompreFace's clients
 * manage it (the faces and subjects of its REST API): the registered faces listed a page at a time,
 * forgotten by id or by person, and people created empty, renamed (merged into a person of the new
 * name, when there is one) and forgotten. Descriptors are never read here: FaceGallery holds them.
 * Every change raises the service's gallery version in its transaction, so that every replica
 * matches against it at its next call (store/memory-versions.ts).
 */
export class FaceExamples {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The service's examples (of the person `name` alone, in any case, when given), oldest first, `size` from `offset`. */
  async page(serviceId: string, options: { readonly name?: string; readonly offset: number; readonly size: number }): Promise<ExamplePage> {
    const base = faceTables(this.db)
      .selectFrom('face_samples')
      .innerJoin('face_people', 'face_people.id', 'face_samples.person_id')
      .where('face_people.service_id', '=', serviceId)
      .$if(options.name !== undefined, (query) => query.where('face_people.userid_key', '=', nameKey(options.name!)));
    const [rows, count] = await Promise.all([
      base.select(['face_samples.id', 'face_people.userid as name']).orderBy('face_samples.created_at').orderBy('face_samples.id').limit(options.size).offset(options.offset).execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
    ]);
    return { examples: rows, total: Number(count.count) };
  }

  /** Forgets the service's examples among `ids`; those it had, with whose they were (an id it lacks is passed over, as CompreFace does). */
  async forget(serviceId: string, ids: readonly string[]): Promise<FaceExample[]> {
    if (ids.length === 0) return [];
    return this.db.transaction().execute(async (tx) => {
      const found = await faceTables(tx)
        .selectFrom('face_samples')
        .innerJoin('face_people', 'face_people.id', 'face_samples.person_id')
        .select(['face_samples.id', 'face_people.userid as name'])
        .where('face_people.service_id', '=', serviceId)
        .where('face_samples.id', 'in', [...ids])
        .execute();
      if (found.length > 0) {
        await faceTables(tx).deleteFrom('face_samples').where('id', 'in', found.map((row) => row.id)).execute();
        await bumpMemoryVersion(tx, serviceId, 'gallery');
      }
      return found;
    });
  }

  /** Forgets every example of the person `name` (in any case), or of everyone when undefined; the people stay. How many were forgotten. */
  async forgetAllOf(serviceId: string, name: string | undefined): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      let people = faceTables(tx).selectFrom('face_people').select('id').where('service_id', '=', serviceId);
      if (name !== undefined) people = people.where('userid_key', '=', nameKey(name));
      const result = await faceTables(tx).deleteFrom('face_samples').where('person_id', 'in', people).executeTakeFirst();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      return Number(result.numDeletedRows);
    });
  }

  /** The names of the service's people, with or without examples. */
  async people(serviceId: string): Promise<string[]> {
    const rows = await faceTables(this.db).selectFrom('face_people').select('userid as name').where('service_id', '=', serviceId).orderBy('userid').execute();
    return rows.map((row) => row.name);
  }

  /** Registers the person `sent` with no example yet; false when the service has them already (FaceGalleryError for a bad name or another case of theirs). */
  async create(serviceId: string, sent: string): Promise<boolean> {
    const name = checkName(sent);
    return this.db.transaction().execute(async (tx) => {
      const existed = await faceTables(tx).selectFrom('face_people').select('id').where('service_id', '=', serviceId).where('userid_key', '=', nameKey(name)).executeTakeFirst();
      if (existed) return false;
      await ensurePerson(tx, serviceId, name, this.now().toISOString());
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      return true;
    });
  }

  /**
   * Renames the person `from` (in any case) to `to`; when the service has a person `to` already,
   * `from`'s examples and "not this person" faces move to them and `from` is forgotten (CompreFace
   * merges so). False when the service has nobody `from`.
   */
  async rename(serviceId: string, from: string, to: string): Promise<boolean> {
    const name = checkName(to);
    return this.db.transaction().execute(async (tx) => {
      const source = await faceTables(tx).selectFrom('face_people').select('id').where('service_id', '=', serviceId).where('userid_key', '=', nameKey(from)).executeTakeFirst();
      if (!source) return false;
      const target = await faceTables(tx).selectFrom('face_people').select('id').where('service_id', '=', serviceId).where('userid_key', '=', nameKey(name)).executeTakeFirst();
      if (!target || target.id === source.id) {
        await faceTables(tx).updateTable('face_people').set({ userid: name, userid_key: nameKey(name) }).where('id', '=', source.id).execute();
      } else {
        await faceTables(tx).updateTable('face_samples').set({ person_id: target.id }).where('person_id', '=', source.id).execute();
        await faceTables(tx).updateTable('face_negatives').set({ person_id: target.id }).where('person_id', '=', source.id).execute();
        await faceTables(tx).deleteFrom('face_people').where('id', '=', source.id).execute();
      }
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      return true;
    });
  }

  /** Forgets every person of the service, with their examples; how many people there were. */
  async forgetEveryone(serviceId: string): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const result = await faceTables(tx).deleteFrom('face_people').where('service_id', '=', serviceId).executeTakeFirst();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      return Number(result.numDeletedRows);
    });
  }
}
