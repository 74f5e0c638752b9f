import crypto from 'node:crypto';
import { DetectdError } from '../../../core/errors.js';
import { UNKNOWN_PERSON } from './unknown-person.js';
import { KeyCipher } from '../../../accounts/key-cipher.js';
import type { Database } from '../../../store/database.js';
import { bumpMemoryVersion, VersionedMemory } from '../../../store/memory-versions.js';
import { faceTables } from './face-tables.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, FACE_MATCH_MARGIN, internalSimilarity, reportedSimilarity } from './face-similarity.js';
import { bestPerPerson, descriptorsById, type GalleryIndex, galleryIndex, type IndexedDescriptor } from './gallery-index.js';

/**
 * Which pipeline makes the descriptors stored from now on: dlib's ResNet on the face aligned by its
 * five landmarks, in colour (models/face-describer.ts). Descriptors of another kind are not
 * comparable with it and are never matched.
 */
export const DESCRIPTOR_KIND = 'dlib-resnet/aligned-5-colour';

/** A registered person as listed: never their descriptors. */
export interface FacePerson {
  /** The name they were registered by (a door's `userid`, `subject`), as first spelled. */
  readonly name: string;
  /** Face descriptors registered for them (one a photo) that recognition uses. */
  readonly samples: number;
  /** Descriptors of an earlier pipeline (DESCRIPTOR_KIND), kept but never matched: the person needs new photos while `samples` is 0. */
  readonly outdatedSamples: number;
  /** "Not this person" examples attached to them (`addNegative`). */
  readonly negatives: number;
  /** When they were first registered, ISO-8601 UTC. */
  readonly created: string;
}

/** The registered person a face is most like, and how alike, in [0, 1] on the reported scale (face-similarity.ts). */
export interface FaceMatch {
  readonly name: string;
  readonly similarity: number;
}

/** A service's gallery as read at one moment: match many faces of one image against one read. */
export interface FaceMatcher {
  /** The threshold in force, on the reported scale: the service's own or the default. */
  readonly threshold: number;
  /** How many people are registered, whatever the kind of their descriptors (0: nobody to name). */
  readonly people: number;
  /**
   * The best-matching candidate, when they are at least `threshold` alike and at least
   * FACE_MATCH_MARGIN more alike (on the internal scale) than any other candidate; undefined otherwise (a stranger, or a
   * face as like two registered people, is nobody). The candidates are the registered people
   * the face is not ruled out for: a person whose "not this person" example (`addNegative`) is
   * more alike to the face than their own nearest sample is never its name, whatever the threshold.
   */
  match(descriptor: Float32Array): FaceMatch | undefined;
  /** The best-matching candidate (as `match` rules them) whatever the threshold and margin (for a UI that shows near misses); undefined when there is none. */
  nearest(descriptor: Float32Array): FaceMatch | undefined;
}

export class FaceGalleryError extends Error {
  constructor(
    readonly code: 'invalid_name' | 'name_case' | 'no_descriptor' | 'invalid_threshold' | 'unknown_person',
    message: string,
  ) {
    super(message);
  }
}

/** A gallery's refusal as the caller's error: 404 `unknown_person` for nobody by that name, else 400 `invalid_configuration` (a bad name, a second spelling, no face). */
export function refusedByGallery(error: unknown): never {
  if (!(error instanceof FaceGalleryError)) throw error;
  throw new DetectdError(error.code === 'unknown_person' ? 'unknown_person' : 'invalid_configuration', error.message);
}

/** A registration: the person as listed after it, and whether it gave them their first faces (a new person, or one created with none). */
export interface Registration {
  readonly person: FacePerson;
  readonly newPerson: boolean;
}

/** One face a person is registered by: its descriptor, and whether its photo was weak (gallery/face-quality.ts warnings). */
export interface FaceSample {
  readonly descriptor: Float32Array;
  readonly weak: boolean;
}

const MAX_NAME_LENGTH = 200;
const CIPHER_PURPOSE = 'face-descriptor/v1';

/**
 * `name` trimmed, as a person may be registered, created or renamed by; FaceGalleryError `invalid_name`
 * otherwise. The messages say `userid`, as every door has answered them since DeepStack's.
 */
export function checkName(name: string): string {
  const trimmed = name.trim();
  // \p{Cc}: every control character, C1 (U+0080–U+009F) as well as C0 and DEL.
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(trimmed)) {
    throw new FaceGalleryError('invalid_name', `userid must be 1 to ${MAX_NAME_LENGTH} characters, no control characters`);
  }
  // No person may be called what a stranger is called, or their face and a stranger's would answer alike.
  if (nameKey(trimmed) === UNKNOWN_PERSON) {
    throw new FaceGalleryError('invalid_name', `"${trimmed}" is what a face no one is named for is called: choose another userid`);
  }
  return trimmed;
}

/**
 * A name as people tell names apart: case and Unicode composition folded (stored as `userid_key`).
 * Two names with one key are one person, so a second spelling is refused (register) or reaches the
 * first (delete): clients echo back exactly the name they registered, and "Amy" and "amy" as two
 * people would split one person's photos between two names.
 */
export const nameKey = (name: string) => name.trim().normalize('NFC').toLowerCase();

export const toText = (descriptor: Float32Array) => Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');

export function fromText(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // Copied into its own buffer: a Float32Array view needs 4-byte alignment.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * The id of the service's person `name` (checked), registered first when new. Two registrations of
 * one new person at once: the unique (service_id, userid_key) lets one insert win. A second
 * spelling of a registered person (nameKey) is refused: `name_case`.
 */
export async function ensurePerson(tx: Database, serviceId: string, name: string, created: string): Promise<string> {
  const key = nameKey(name);
  await faceTables(tx)
    .insertInto('face_people')
    .values({ id: crypto.randomUUID(), service_id: serviceId, userid: name, userid_key: key, created_at: created })
    .onConflict((conflict) => conflict.columns(['service_id', 'userid_key']).doNothing())
    .execute();
  const person = await faceTables(tx).selectFrom('face_people').select(['id', 'userid as name']).where('service_id', '=', serviceId).where('userid_key', '=', key).executeTakeFirstOrThrow();
  if (person.name !== name) {
    throw new FaceGalleryError('name_case', `"${name}" is the registered person "${person.name}" in another case: register the photos as "${person.name}" (userids that differ only in case are one person)`);
  }
  return person.id;
}

/**
 * Each face service's gallery of people in the database (tables `face_people`, `face_samples`,
 * `face_negatives`), held in memory for matching and kept current on every replica: each write
 * raises the service's gallery version in its transaction, and each match reads that version first
 * (`matcher`), so a registration on one replica is recognised by all at the next call.
 * Descriptors are biometric data: stored encrypted under the server secret (AES-256-GCM, bound to
 * their row), never returned by `list` and never logged.
 */
export class FaceGallery {
  readonly #cipher: KeyCipher;
  readonly #memory: VersionedMemory<GalleryIndex>;

  constructor(
    private readonly db: Database,
    serverSecret: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#cipher = new KeyCipher(serverSecret, CIPHER_PURPOSE);
    this.#memory = new VersionedMemory(db, 'gallery');
  }

  /**
   * Adds face descriptors (one a photo) to the person `name` of the service, registering the
   * person first if new (DeepStack's register adds to a known userid).
   */
  async register(serviceId: string, name: string, samples: readonly FaceSample[]): Promise<Registration> {
    const { person } = await this.#add(serviceId, name, samples);
    return { person, newPerson: person.samples + person.outdatedSamples === samples.length };
  }

  /** Adds one face descriptor to the person `name` (registered first if new), as `register` does: the person as listed, and the sample's id (CompreFace's `image_id`). */
  async addExample(serviceId: string, name: string, sample: FaceSample): Promise<{ readonly person: FacePerson; readonly sampleId: string }> {
    const { person, sampleIds } = await this.#add(serviceId, name, [sample]);
    return { person, sampleId: sampleIds[0] };
  }

  async #add(serviceId: string, sent: string, samples: readonly FaceSample[]): Promise<{ person: FacePerson; sampleIds: string[] }> {
    const name = checkName(sent);
    if (samples.length === 0) throw new FaceGalleryError('no_descriptor', 'a person is registered from at least one face');
    const created = this.now().toISOString();
    return this.db.transaction().execute(async (tx) => {
      const personId = await ensurePerson(tx, serviceId, name, created);
      const rows = samples.map(({ descriptor, weak }) => {
        const id = crypto.randomUUID();
        return { id, person_id: personId, descriptor_ciphertext: this.#cipher.encrypt(toText(descriptor), id), descriptor_kind: DESCRIPTOR_KIND, weak: weak ? 1 : 0, created_at: created };
      });
      await faceTables(tx).insertInto('face_samples').values(rows).execute();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      const [listed] = await this.#people(tx, serviceId, personId);
      return { person: listed, sampleIds: rows.map((row) => row.id) };
    });
  }

  /** The descriptor of the service's sample `sampleId` and whose it is; undefined when the service has no such sample of the current kind. */
  async example(serviceId: string, sampleId: string): Promise<{ readonly name: string; readonly descriptor: Float32Array } | undefined> {
    const row = await faceTables(this.db)
      .selectFrom('face_samples')
      .innerJoin('face_people', 'face_people.id', 'face_samples.person_id')
      .select(['face_samples.id', 'face_samples.descriptor_ciphertext', 'face_people.userid as name'])
      .where('face_people.service_id', '=', serviceId)
      .where('face_samples.id', '=', sampleId)
      .where('face_samples.descriptor_kind', '=', DESCRIPTOR_KIND)
      .executeTakeFirst();
    return row && { name: row.name, descriptor: fromText(this.#cipher.decrypt(row.descriptor_ciphertext, row.id)) };
  }

  /**
   * Attaches a "not this person" example to the registered person `name` (in any case:
   * nameKey): a face they were named for wrongly. A face is no longer named as them when it is
   * more alike to one of these than to their own nearest sample (FaceMatcher.match).
   * FaceGalleryError `unknown_person` when the service has nobody by that name.
   */
  async addNegative(serviceId: string, name: string, descriptor: Float32Array): Promise<FacePerson> {
    const person = await faceTables(this.db).selectFrom('face_people').select('id').where('service_id', '=', serviceId).where('userid_key', '=', nameKey(name)).executeTakeFirst();
    if (!person) throw new FaceGalleryError('unknown_person', `nobody is registered as "${name.trim()}" in this service`);
    const id = crypto.randomUUID();
    await this.db.transaction().execute(async (tx) => {
      await faceTables(tx)
        .insertInto('face_negatives')
        .values({ id, person_id: person.id, descriptor_ciphertext: this.#cipher.encrypt(toText(descriptor), id), descriptor_kind: DESCRIPTOR_KIND, created_at: this.now().toISOString() })
        .execute();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
    });
    const [listed] = await this.#people(this.db, serviceId, person.id);
    return listed;
  }

  /** The service's people, by name. */
  list(serviceId: string): Promise<FacePerson[]> {
    return this.#people(this.db, serviceId);
  }

  /** The service's people (or the one person `personId`), with their samples counted by kind. */
  async #people(db: Database, serviceId: string, personId?: string): Promise<FacePerson[]> {
    let query = faceTables(db)
      .selectFrom('face_people')
      .leftJoin('face_samples', 'face_samples.person_id', 'face_people.id')
      .select((eb) => [
        'face_people.userid as name',
        'face_people.created_at',
        eb.fn.sum<number | string | null>(eb.case().when('face_samples.descriptor_kind', '=', DESCRIPTOR_KIND).then(1).else(0).end()).as('samples'),
        eb.fn.count<number | string>('face_samples.id').as('all_samples'),
        eb.selectFrom('face_negatives').select((inner) => inner.fn.countAll<number | string>().as('count')).whereRef('face_negatives.person_id', '=', 'face_people.id').as('negatives'),
      ])
      .where('face_people.service_id', '=', serviceId);
    if (personId !== undefined) query = query.where('face_people.id', '=', personId);
    const rows = await query.groupBy(['face_people.id', 'face_people.userid', 'face_people.created_at']).orderBy('face_people.userid').execute();
    return rows.map((row) => {
      const samples = Number(row.samples ?? 0);
      return { name: row.name, samples, outdatedSamples: Number(row.all_samples) - samples, negatives: Number(row.negatives ?? 0), created: row.created_at };
    });
  }

  /** Removes the person (by name, in any case: nameKey) and their descriptors; false when the service has no such person. */
  async delete(serviceId: string, name: string): Promise<boolean> {
    const result = await this.db.transaction().execute(async (tx) => {
      const deleted = await faceTables(tx).deleteFrom('face_people').where('service_id', '=', serviceId).where('userid_key', '=', nameKey(name)).executeTakeFirst();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
      return deleted;
    });
    return Number(result.numDeletedRows) > 0;
  }

  /** How many people, across every service, recognition cannot name until they are registered again: all their descriptors are of an earlier kind. */
  async peopleToRegisterAgain(): Promise<number> {
    const rows = await faceTables(this.db)
      .selectFrom('face_people')
      .innerJoin('face_samples', 'face_samples.person_id', 'face_people.id')
      .select('face_people.id')
      .groupBy('face_people.id')
      .having((eb) => eb.fn.sum<number | string>(eb.case().when('face_samples.descriptor_kind', '=', DESCRIPTOR_KIND).then(1).else(0).end()), '=', 0)
      .execute();
    return rows.length;
  }

  /** The service's match threshold: its own, else DEFAULT_FACE_MATCH_THRESHOLD. */
  async threshold(serviceId: string, db: Database = this.db): Promise<number> {
    const row = await faceTables(db).selectFrom('services').select('face_match_threshold').where('id', '=', serviceId).executeTakeFirst();
    return row?.face_match_threshold ?? DEFAULT_FACE_MATCH_THRESHOLD;
  }

  /** The service's own threshold; null: it has none, and DEFAULT_FACE_MATCH_THRESHOLD is in force. */
  async ownThreshold(serviceId: string): Promise<number | null> {
    const row = await faceTables(this.db).selectFrom('services').select('face_match_threshold').where('id', '=', serviceId).executeTakeFirst();
    return row?.face_match_threshold ?? null;
  }

  /** Sets the service's own threshold, a reported similarity in [0, 1]; null returns it to the default. */
  async setThreshold(serviceId: string, threshold: number | null): Promise<void> {
    if (threshold !== null && !(Number.isFinite(threshold) && threshold >= 0 && threshold <= 1)) {
      throw new FaceGalleryError('invalid_threshold', 'the face match threshold is a similarity in [0, 1]');
    }
    await this.db.transaction().execute(async (tx) => {
      await faceTables(tx).updateTable('services').set({ face_match_threshold: threshold }).where('id', '=', serviceId).execute();
      await bumpMemoryVersion(tx, serviceId, 'gallery');
    });
  }

  /**
   * The service's gallery and threshold as they are now, to match the faces of one image: held in
   * memory, read and decrypted once per version of the gallery (store/memory-versions.ts), so a
   * call reads one row, however many people are registered. When the database is away, the gallery
   * last read is matched against.
   */
  async matcher(serviceId: string): Promise<FaceMatcher> {
    const index = await this.#memory.current(serviceId, (db, previous) => this.#index(db, serviceId, previous));
    /** Each candidate's best similarity to the descriptor: everyone with a sample but those one of whose negatives is more alike than their nearest sample. */
    const ranked = (descriptor: Float32Array): { best?: FaceMatch; next?: FaceMatch } => {
      const people = index.names.length;
      const nearest = bestPerPerson(index.samples, people, descriptor);
      const ruledOut = bestPerPerson(index.negatives, people, descriptor);
      let best: FaceMatch | undefined;
      let next: FaceMatch | undefined;
      for (const [person, similarity] of nearest.entries()) {
        if (similarity < 0 || similarity < ruledOut[person]) continue;
        const candidate = { name: index.names[person], similarity };
        if (!best || similarity > best.similarity) [best, next] = [candidate, best];
        else if (!next || similarity > next.similarity) next = candidate;
      }
      return { best, next };
    };
    // Compared inside, where the margin is set; the match leaves on the reported scale.
    const internalThreshold = internalSimilarity(index.threshold);
    const reported = (match: FaceMatch | undefined) => match && { name: match.name, similarity: reportedSimilarity(match.similarity) };
    return {
      threshold: index.threshold,
      people: index.names.length,
      nearest: (descriptor) => reported(ranked(descriptor).best),
      match(descriptor) {
        const { best, next } = ranked(descriptor);
        if (!best || best.similarity < internalThreshold) return undefined;
        return next && best.similarity - next.similarity < FACE_MATCH_MARGIN ? undefined : reported(best);
      },
    };
  }

  /** The service's people, threshold and current-kind descriptors, decrypted (but those `previous` holds already), as one index. */
  async #index(db: Database, serviceId: string, previous: GalleryIndex | undefined): Promise<GalleryIndex> {
    const held = descriptorsById(previous);
    const [people, threshold, samples, negatives] = await Promise.all([
      faceTables(db).selectFrom('face_people').select(['id', 'userid as name']).where('service_id', '=', serviceId).orderBy('userid').execute(),
      this.threshold(serviceId, db),
      this.#descriptors(db, serviceId, 'face_samples', held),
      this.#descriptors(db, serviceId, 'face_negatives', held),
    ]);
    // A weak sample counts only for a person with no good one (docs/faces.md "Registration quality": weak samples beside good ones named strangers, and named no one more).
    const withGood = new Set(samples.filter((sample) => !sample.weak).map((sample) => sample.personId));
    return galleryIndex(people, samples.filter((sample) => !sample.weak || !withGood.has(sample.personId)), negatives, threshold);
  }

  /** The service's current-kind descriptors in `table` (samples or negatives), with their person. */
  async #descriptors(db: Database, serviceId: string, table: 'face_samples' | 'face_negatives', held: ReadonlyMap<string, Float32Array>): Promise<IndexedDescriptor[]> {
    const rows = await faceTables(db)
      .selectFrom(table)
      .innerJoin('face_people', 'face_people.id', `${table}.person_id`)
      .select([`${table}.id as id`, `${table}.descriptor_ciphertext as ciphertext`, 'face_people.id as personId'])
      .$if(table === 'face_samples', (query) => query.select('face_samples.weak as weak'))
      .where('face_people.service_id', '=', serviceId)
      .where(`${table}.descriptor_kind`, '=', DESCRIPTOR_KIND)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      personId: row.personId,
      descriptor: held.get(row.id) ?? fromText(this.#cipher.decrypt(row.ciphertext, row.id)),
      weak: 'weak' in row && Number(row.weak) === 1,
    }));
  }

  /** The registered person `descriptor` is a face of, or undefined below the service's threshold. */
  async match(serviceId: string, descriptor: Float32Array): Promise<FaceMatch | undefined> {
    return (await this.matcher(serviceId)).match(descriptor);
  }
}
