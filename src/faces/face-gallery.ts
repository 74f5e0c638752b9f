import crypto from 'node:crypto';
import { KeyCipher } from '../accounts/key-cipher.js';
import type { Database } from '../store/database.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, FACE_MATCH_MARGIN, faceSimilarity } from './face-similarity.js';

/**
 * Which pipeline makes the descriptors stored from now on: dlib's ResNet on the face aligned by its
 * five landmarks, in colour (models/face-describer.ts). Descriptors of another kind are not
 * comparable with it and are never matched.
 */
export const DESCRIPTOR_KIND = 'dlib-resnet/aligned-5-colour';

/** A registered person as listed: never their descriptors. */
export interface FacePerson {
  readonly userid: string;
  /** Face descriptors registered for them (one a photo) that recognition uses. */
  readonly samples: number;
  /** Descriptors of an earlier pipeline (DESCRIPTOR_KIND), kept but never matched: the person needs new photos while `samples` is 0. */
  readonly outdatedSamples: number;
  /** "Not this person" examples attached to them (`addNegative`). */
  readonly negatives: number;
  /** When they were first registered, ISO-8601 UTC. */
  readonly created: string;
}

/** The registered person a face is most like, and how alike, in [0, 1] (face-similarity.ts). */
export interface FaceMatch {
  readonly userid: string;
  readonly similarity: number;
}

/** A service's gallery as read at one moment: match many faces of one image against one read. */
export interface FaceMatcher {
  /** The threshold in force: the service's own or the default. */
  readonly threshold: number;
  /**
   * The best-matching candidate, when they are at least `threshold` alike and at least
   * FACE_MATCH_MARGIN more alike than any other candidate; undefined otherwise (a stranger, or a
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
    readonly code: 'invalid_userid' | 'userid_case' | 'no_descriptor' | 'invalid_threshold' | 'unknown_person',
    message: string,
  ) {
    super(message);
  }
}

/** A descriptor of a registered person's, decrypted: a sample or a negative. */
interface PersonDescriptor {
  readonly userid: string;
  readonly descriptor: Float32Array;
  /** A sample from a weak photo (faces/face-quality.ts): it counts only for a person with no good sample. */
  readonly weak: boolean;
}

/** One face a person is registered by: its descriptor, and whether its photo was weak (faces/face-quality.ts warnings). */
export interface FaceSample {
  readonly descriptor: Float32Array;
  readonly weak: boolean;
}

const MAX_USERID_LENGTH = 200;
const CIPHER_PURPOSE = 'face-descriptor/v1';

function checkUserid(userid: string): string {
  const trimmed = userid.trim();
  // \p{Cc}: every control character, C1 (U+0080–U+009F) as well as C0 and DEL.
  if (trimmed.length === 0 || trimmed.length > MAX_USERID_LENGTH || /\p{Cc}/u.test(trimmed)) {
    throw new FaceGalleryError('invalid_userid', `userid must be 1 to ${MAX_USERID_LENGTH} characters, no control characters`);
  }
  return trimmed;
}

/**
 * A userid as people tell names apart: case and Unicode composition folded. Two userids with one
 * key are one person, so a second spelling is refused (register) or reaches the first (delete):
 * clients echo back exactly the userid they registered, and "Amy" and "amy" as two people would
 * split one person's photos between two names.
 */
export const useridKey = (userid: string) => userid.trim().normalize('NFC').toLowerCase();

export const toText = (descriptor: Float32Array) => Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');

export function fromText(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // Copied into its own buffer: a Float32Array view needs 4-byte alignment.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * Each face service's gallery of people in the database (tables `face_people`, `face_samples`),
 * read afresh on every match so that a registration on one replica is recognised by all at once.
 * Descriptors are biometric data: stored encrypted under the server secret (AES-256-GCM, bound to
 * their row), never returned by `list` and never logged.
 */
export class FaceGallery {
  readonly #cipher: KeyCipher;

  constructor(
    private readonly db: Database,
    serverSecret: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#cipher = new KeyCipher(serverSecret, CIPHER_PURPOSE);
  }

  /**
   * Adds face descriptors (one a photo) to the person `userid` of the service, registering the
   * person first if new (DeepStack's register adds to a known userid). Returns the person as listed.
   */
  async register(serviceId: string, userid: string, samples: readonly FaceSample[]): Promise<FacePerson> {
    const name = checkUserid(userid);
    const key = useridKey(name);
    if (samples.length === 0) throw new FaceGalleryError('no_descriptor', 'a person is registered from at least one face');
    const created = this.now().toISOString();
    return this.db.transaction().execute(async (tx) => {
      // Two registrations of one new person at once: the unique (service_id, userid_key) lets one insert win.
      await tx
        .insertInto('face_people')
        .values({ id: crypto.randomUUID(), service_id: serviceId, userid: name, userid_key: key, created_at: created })
        .onConflict((conflict) => conflict.columns(['service_id', 'userid_key']).doNothing())
        .execute();
      const person = await tx.selectFrom('face_people').select(['id', 'userid', 'created_at']).where('service_id', '=', serviceId).where('userid_key', '=', key).executeTakeFirstOrThrow();
      if (person.userid !== name) {
        throw new FaceGalleryError('userid_case', `"${name}" is the registered person "${person.userid}" in another case: register the photos as "${person.userid}" (userids that differ only in case are one person)`);
      }
      const rows = samples.map(({ descriptor, weak }) => {
        const id = crypto.randomUUID();
        return { id, person_id: person.id, descriptor_ciphertext: this.#cipher.encrypt(toText(descriptor), id), descriptor_kind: DESCRIPTOR_KIND, weak: weak ? 1 : 0, created_at: created };
      });
      await tx.insertInto('face_samples').values(rows).execute();
      const [listed] = await this.#people(tx, serviceId, person.id);
      return listed;
    });
  }

  /**
   * Attaches a "not this person" example to the registered person `userid` (in any case:
   * useridKey): a face they were named for wrongly. A face is no longer named as them when it is
   * more alike to one of these than to their own nearest sample (FaceMatcher.match).
   * FaceGalleryError `unknown_person` when the service has nobody by that userid.
   */
  async addNegative(serviceId: string, userid: string, descriptor: Float32Array): Promise<FacePerson> {
    const person = await this.db.selectFrom('face_people').select('id').where('service_id', '=', serviceId).where('userid_key', '=', useridKey(userid)).executeTakeFirst();
    if (!person) throw new FaceGalleryError('unknown_person', `nobody is registered as "${userid.trim()}" in this service`);
    const id = crypto.randomUUID();
    await this.db
      .insertInto('face_negatives')
      .values({ id, person_id: person.id, descriptor_ciphertext: this.#cipher.encrypt(toText(descriptor), id), descriptor_kind: DESCRIPTOR_KIND, created_at: this.now().toISOString() })
      .execute();
    const [listed] = await this.#people(this.db, serviceId, person.id);
    return listed;
  }

  /** The service's people, by userid. */
  list(serviceId: string): Promise<FacePerson[]> {
    return this.#people(this.db, serviceId);
  }

  /** The service's people (or the one person `personId`), with their samples counted by kind. */
  async #people(db: Database, serviceId: string, personId?: string): Promise<FacePerson[]> {
    let query = db
      .selectFrom('face_people')
      .leftJoin('face_samples', 'face_samples.person_id', 'face_people.id')
      .select((eb) => [
        'face_people.userid',
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
      return { userid: row.userid, samples, outdatedSamples: Number(row.all_samples) - samples, negatives: Number(row.negatives ?? 0), created: row.created_at };
    });
  }

  /** Removes the person (by userid, in any case: useridKey) and their descriptors; false when the service has no such person. */
  async delete(serviceId: string, userid: string): Promise<boolean> {
    const result = await this.db.deleteFrom('face_people').where('service_id', '=', serviceId).where('userid_key', '=', useridKey(userid)).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** How many people, across every service, recognition cannot name until they are registered again: all their descriptors are of an earlier kind. */
  async peopleToRegisterAgain(): Promise<number> {
    const rows = await this.db
      .selectFrom('face_people')
      .innerJoin('face_samples', 'face_samples.person_id', 'face_people.id')
      .select('face_people.id')
      .groupBy('face_people.id')
      .having((eb) => eb.fn.sum<number | string>(eb.case().when('face_samples.descriptor_kind', '=', DESCRIPTOR_KIND).then(1).else(0).end()), '=', 0)
      .execute();
    return rows.length;
  }

  /** The service's match threshold: its own, else DEFAULT_FACE_MATCH_THRESHOLD. */
  async threshold(serviceId: string): Promise<number> {
    const row = await this.db.selectFrom('services').select('face_match_threshold').where('id', '=', serviceId).executeTakeFirst();
    return row?.face_match_threshold ?? DEFAULT_FACE_MATCH_THRESHOLD;
  }

  /** Sets the service's own threshold, in [0, 1]; null returns it to the default. */
  async setThreshold(serviceId: string, threshold: number | null): Promise<void> {
    if (threshold !== null && !(Number.isFinite(threshold) && threshold >= 0 && threshold <= 1)) {
      throw new FaceGalleryError('invalid_threshold', 'the face match threshold is a similarity in [0, 1]');
    }
    await this.db.updateTable('services').set({ face_match_threshold: threshold }).where('id', '=', serviceId).execute();
  }

  /** Reads the service's gallery and threshold once, to match the faces of one image. */
  async matcher(serviceId: string): Promise<FaceMatcher> {
    const [threshold, allSamples, negatives] = await Promise.all([this.threshold(serviceId), this.#descriptors(serviceId, 'face_samples'), this.#descriptors(serviceId, 'face_negatives')]);
    // A weak sample counts only for a person with no good one (docs/faces.md "Registration quality": weak samples beside good ones named strangers, and named no one more).
    const withGood = new Set(allSamples.filter((sample) => !sample.weak).map((sample) => sample.userid));
    const samples = allSamples.filter((sample) => !sample.weak || !withGood.has(sample.userid));
    /** The best similarity of `descriptor` to each person's descriptors in `of`. */
    const bestOf = (of: readonly PersonDescriptor[], descriptor: Float32Array): Map<string, number> => {
      const best = new Map<string, number>();
      for (const entry of of) {
        const similarity = faceSimilarity(descriptor, entry.descriptor);
        if (similarity > (best.get(entry.userid) ?? -1)) best.set(entry.userid, similarity);
      }
      return best;
    };
    /** Each candidate's best similarity to the descriptor, most alike first: everyone but those one of whose negatives is more alike than their nearest sample. */
    const ranked = (descriptor: Float32Array): FaceMatch[] => {
      const ruledOut = bestOf(negatives, descriptor);
      return [...bestOf(samples, descriptor)]
        .filter(([userid, similarity]) => !(similarity < (ruledOut.get(userid) ?? -1)))
        .map(([userid, similarity]) => ({ userid, similarity }))
        .sort((a, b) => b.similarity - a.similarity);
    };
    return {
      threshold,
      nearest: (descriptor) => ranked(descriptor)[0],
      match(descriptor) {
        const [best, next] = ranked(descriptor);
        if (!best || best.similarity < threshold) return undefined;
        return next && best.similarity - next.similarity < FACE_MATCH_MARGIN ? undefined : best;
      },
    };
  }

  /** The service's current-kind descriptors in `table` (samples or negatives), decrypted, with their person's userid. */
  async #descriptors(serviceId: string, table: 'face_samples' | 'face_negatives'): Promise<PersonDescriptor[]> {
    const rows = await this.db
      .selectFrom(table)
      .innerJoin('face_people', 'face_people.id', `${table}.person_id`)
      .select([`${table}.id as id`, `${table}.descriptor_ciphertext as ciphertext`, 'face_people.userid'])
      .$if(table === 'face_samples', (query) => query.select('face_samples.weak as weak'))
      .where('face_people.service_id', '=', serviceId)
      .where(`${table}.descriptor_kind`, '=', DESCRIPTOR_KIND)
      .execute();
    return rows.map((row) => ({ userid: row.userid, descriptor: fromText(this.#cipher.decrypt(row.ciphertext, row.id)), weak: 'weak' in row && Number(row.weak) === 1 }));
  }

  /** The registered person `descriptor` is a face of, or undefined below the service's threshold. */
  async match(serviceId: string, descriptor: Float32Array): Promise<FaceMatch | undefined> {
    return (await this.matcher(serviceId)).match(descriptor);
  }
}
