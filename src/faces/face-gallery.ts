import crypto from 'node:crypto';
import { KeyCipher } from '../accounts/key-cipher.js';
import type { Database } from '../store/database.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from './face-similarity.js';

/** A registered person as listed: never their descriptors. */
export interface FacePerson {
  readonly userid: string;
  /** Face descriptors registered for them (one a photo). */
  readonly samples: number;
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
  /** The best-matching person at or above the threshold; undefined when nobody is that alike. */
  match(descriptor: Float32Array): FaceMatch | undefined;
  /** The best-matching person whatever the threshold (for a UI that shows near misses); undefined for an empty gallery. */
  nearest(descriptor: Float32Array): FaceMatch | undefined;
}

export class FaceGalleryError extends Error {
  constructor(
    readonly code: 'invalid_userid' | 'no_descriptor' | 'invalid_threshold',
    message: string,
  ) {
    super(message);
  }
}

const MAX_USERID_LENGTH = 200;
const CIPHER_PURPOSE = 'face-descriptor/v1';

function checkUserid(userid: string): string {
  const trimmed = userid.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_USERID_LENGTH || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new FaceGalleryError('invalid_userid', `userid must be 1 to ${MAX_USERID_LENGTH} characters, no control characters`);
  }
  return trimmed;
}

const toText = (descriptor: Float32Array) => Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');

function fromText(text: string): Float32Array {
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
  async register(serviceId: string, userid: string, descriptors: readonly Float32Array[]): Promise<FacePerson> {
    const name = checkUserid(userid);
    if (descriptors.length === 0) throw new FaceGalleryError('no_descriptor', 'a person is registered from at least one face');
    const created = this.now().toISOString();
    return this.db.transaction().execute(async (tx) => {
      // Two registrations of one new userid at once: the unique (service_id, userid) lets one insert win.
      await tx
        .insertInto('face_people')
        .values({ id: crypto.randomUUID(), service_id: serviceId, userid: name, created_at: created })
        .onConflict((conflict) => conflict.columns(['service_id', 'userid']).doNothing())
        .execute();
      const person = await tx.selectFrom('face_people').select(['id', 'created_at']).where('service_id', '=', serviceId).where('userid', '=', name).executeTakeFirstOrThrow();
      const rows = descriptors.map((descriptor) => {
        const id = crypto.randomUUID();
        return { id, person_id: person.id, descriptor_ciphertext: this.#cipher.encrypt(toText(descriptor), id), created_at: created };
      });
      await tx.insertInto('face_samples').values(rows).execute();
      const { samples } = await tx.selectFrom('face_samples').select((eb) => eb.fn.countAll<number | string>().as('samples')).where('person_id', '=', person.id).executeTakeFirstOrThrow();
      return { userid: name, samples: Number(samples), created: person.created_at };
    });
  }

  /** The service's people, by userid. */
  async list(serviceId: string): Promise<FacePerson[]> {
    const rows = await this.db
      .selectFrom('face_people')
      .leftJoin('face_samples', 'face_samples.person_id', 'face_people.id')
      .select((eb) => ['face_people.userid', 'face_people.created_at', eb.fn.count<number | string>('face_samples.id').as('samples')])
      .where('face_people.service_id', '=', serviceId)
      .groupBy(['face_people.id', 'face_people.userid', 'face_people.created_at'])
      .orderBy('face_people.userid')
      .execute();
    return rows.map((row) => ({ userid: row.userid, samples: Number(row.samples), created: row.created_at }));
  }

  /** Removes the person and their descriptors; false when the service has no such person. */
  async delete(serviceId: string, userid: string): Promise<boolean> {
    const result = await this.db.deleteFrom('face_people').where('service_id', '=', serviceId).where('userid', '=', userid.trim()).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
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
    const [threshold, rows] = await Promise.all([
      this.threshold(serviceId),
      this.db
        .selectFrom('face_samples')
        .innerJoin('face_people', 'face_people.id', 'face_samples.person_id')
        .select(['face_samples.id', 'face_samples.descriptor_ciphertext', 'face_people.userid'])
        .where('face_people.service_id', '=', serviceId)
        .execute(),
    ]);
    const samples = rows.map((row) => ({ userid: row.userid, descriptor: fromText(this.#cipher.decrypt(row.descriptor_ciphertext, row.id)) }));
    const nearest = (descriptor: Float32Array): FaceMatch | undefined => {
      let best: FaceMatch | undefined;
      for (const sample of samples) {
        const similarity = faceSimilarity(descriptor, sample.descriptor);
        if (!best || similarity > best.similarity) best = { userid: sample.userid, similarity };
      }
      return best;
    };
    return {
      threshold,
      nearest,
      match(descriptor) {
        const best = nearest(descriptor);
        return best && best.similarity >= threshold ? best : undefined;
      },
    };
  }

  /** The registered person `descriptor` is a face of, or undefined below the service's threshold. */
  async match(serviceId: string, descriptor: Float32Array): Promise<FaceMatch | undefined> {
    return (await this.matcher(serviceId)).match(descriptor);
  }
}
