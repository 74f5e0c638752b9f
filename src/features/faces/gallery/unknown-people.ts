import crypto from 'node:crypto';
import { KeyCipher } from '../../../accounts/key-cipher.js';
import type { Database } from '../../../store/database.js';
import { eraseDeleted } from '../../../store/erase-deleted.js';
import { bumpMemoryVersion, VersionedMemory } from '../../../store/memory-versions.js';
import { loadSharp } from '../../../vision/sharp.js';
import { faceTables } from './face-tables.js';
import { DESCRIPTOR_KIND, type FaceGallery, type FacePerson, fromText, toText } from './face-gallery.js';
import { heightWarning } from './face-quality.js';
import { GroupedFaces } from './unknown-grouping.js';

/** A face service's switch: whether it keeps the faces it cannot name, for how long, and how many at most. */
export interface UnknownFaceSettings {
  readonly remember: boolean;
  /** Kept faces are forgotten this many days after they were seen. */
  readonly retentionDays: number;
  /** At most this many faces are kept; the oldest go first. */
  readonly maxFaces: number;
}

/** An unknown person as listed: never a descriptor. */
export interface UnknownPerson {
  readonly id: string;
  readonly faces: number;
  /** ISO-8601 UTC. */
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** Its best faces (largest, then surest), best first: the ones shown, and the ones registered when it is named. */
  readonly bestFaces: readonly string[];
}

/** One kept face as listed. */
export interface UnknownFaceSeen {
  readonly id: string;
  readonly seen: string;
  readonly frameId: string | null;
  readonly sourceId: string | null;
  /** Its height in the image, pixels. */
  readonly height: number;
  readonly confidence: number;
}

/** A face the face task could not name, as it hands it over to be kept. */
export interface UnnamedFace {
  readonly descriptor: Float32Array;
  /** The face (with a margin) as a JPEG, at any size: kept shrunk to THUMBNAIL_HEIGHT. */
  readonly crop: Buffer;
  readonly height: number;
  readonly confidence: number;
}

/** Where the faces of one call came from: the call's labels, and the image they share. */
export interface SeenIn {
  readonly frameId?: string;
  readonly sourceId?: string;
}

/** What naming an unknown person did: the person it registered faces to, how many, and how many of them were weak (smaller than a good photo's: face-quality.ts). */
export interface NamedUnknown {
  readonly person: FacePerson;
  readonly registered: number;
  readonly weak: number;
}

export class UnknownPeopleError extends Error {
  constructor(
    readonly code: 'invalid_settings' | 'invalid_face_count' | 'same_group',
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_UNKNOWN_FACE_SETTINGS: UnknownFaceSettings = { remember: false, retentionDays: 30, maxFaces: 1000 };
export const MAX_RETENTION_DAYS = 3650;
export const MAX_UNKNOWN_FACES = 100_000;
/** Thumbnails are this tall (their width follows): enough to tell a face, little to store. */
const THUMBNAIL_HEIGHT = 80;
/** How many of its best faces an unknown person lists. */
const LISTED_BEST_FACES = 4;
/** How many of its best faces naming registers (docs/faces.md: measured). */
export const NAMED_FACES = 4;
export const MAX_NAMED_FACES = 20;
const DAY_MS = 86_400_000;
/** The cipher purpose of kept descriptors (the measurement reads them back to tune grouping: scripts/unknown-faces-eval.ts). */
export const UNKNOWN_DESCRIPTOR_PURPOSE = 'unknown-face-descriptor/v1';
/** The cipher purpose of kept thumbnails (the benchmark keeps faces of its own: scripts/bench-faces.ts). */
export const UNKNOWN_THUMBNAIL_PURPOSE = 'unknown-face-thumbnail/v1';

/** A kept face as keeping orders it for retention and the cap. */
interface HeldFace {
  readonly id: string;
  readonly groupId: string;
  readonly seen: string;
}

/**
 * A service's kept faces as keeping holds them in memory, decrypted once: the descriptors of the
 * current kind, grouped (only those are grouped), and every face oldest first, for retention and the cap.
 */
interface KeptFaces {
  readonly grouped: GroupedFaces;
  readonly faces: HeldFace[];
}

const oldestFirst = (a: HeldFace, b: HeldFace) => (a.seen < b.seen ? -1 : a.seen > b.seen ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
/** Rows a DELETE … IN names at most. */
const IDS_PER_DELETE = 500;

/** Largest first, then surest: the faces that describe a person best. */
const byQuality = (a: { face_height: number; confidence: number }, b: { face_height: number; confidence: number }) => b.face_height - a.face_height || b.confidence - a.confidence;

/**
 * The unknown people of each face service (tables `unknown_groups`, `unknown_faces`): the faces it
 * could not name, kept only while its owner turned remembering on, grouped as they arrive
 * (unknown-grouping.ts), and named, merged or forgotten by the owner. Descriptors and thumbnails
 * are biometric data: encrypted under the server secret, bound to their row, never logged. What
 * grouping compares is held in memory (the descriptors, decrypted once) and kept current on every
 * replica by the service's version of its unknown faces, raised by every write
 * (store/memory-versions.ts); everything listed or shown is read from the database, so a forgotten
 * face is gone from every replica at once.
 */
export class UnknownPeople {
  readonly #descriptors: KeyCipher;
  readonly #thumbnails: KeyCipher;
  readonly #kept: VersionedMemory<KeptFaces>;

  constructor(
    private readonly db: Database,
    serverSecret: string,
    private readonly gallery: FaceGallery,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#descriptors = new KeyCipher(serverSecret, UNKNOWN_DESCRIPTOR_PURPOSE);
    this.#thumbnails = new KeyCipher(serverSecret, UNKNOWN_THUMBNAIL_PURPOSE);
    this.#kept = new VersionedMemory(db, 'unknown-faces');
  }

  async settings(serviceId: string, db: Database = this.db): Promise<UnknownFaceSettings> {
    const row = await faceTables(db)
      .selectFrom('services')
      .select(['remember_unknown_faces', 'unknown_faces_retention_days', 'unknown_faces_max'])
      .where('id', '=', serviceId)
      .executeTakeFirst();
    if (!row) return DEFAULT_UNKNOWN_FACE_SETTINGS;
    return { remember: Number(row.remember_unknown_faces) === 1, retentionDays: Number(row.unknown_faces_retention_days), maxFaces: Number(row.unknown_faces_max) };
  }

  /** Changes what is given; a smaller retention or cap forgets at once what it no longer allows. */
  async setSettings(serviceId: string, changes: Partial<UnknownFaceSettings>): Promise<UnknownFaceSettings> {
    const { retentionDays, maxFaces, remember } = changes;
    if (retentionDays !== undefined && !(Number.isInteger(retentionDays) && retentionDays >= 1 && retentionDays <= MAX_RETENTION_DAYS)) {
      throw new UnknownPeopleError('invalid_settings', `retention_days is a whole number of days from 1 to ${MAX_RETENTION_DAYS}`);
    }
    if (maxFaces !== undefined && !(Number.isInteger(maxFaces) && maxFaces >= 1 && maxFaces <= MAX_UNKNOWN_FACES)) {
      throw new UnknownPeopleError('invalid_settings', `max_faces is a whole number from 1 to ${MAX_UNKNOWN_FACES}`);
    }
    return this.db.transaction().execute(async (tx) => {
      await faceTables(tx)
        .updateTable('services')
        .set({
          ...(remember !== undefined && { remember_unknown_faces: remember ? 1 : 0 }),
          ...(retentionDays !== undefined && { unknown_faces_retention_days: retentionDays }),
          ...(maxFaces !== undefined && { unknown_faces_max: maxFaces }),
        })
        .where('id', '=', serviceId)
        .execute();
      const settings = await this.settings(serviceId, tx);
      await this.#purge(tx, serviceId, settings);
      return settings;
    });
  }

  /**
   * Keeps the faces of one image that no one was named for, each in the unknown person it is
   * surely a face of or in a new one, then forgets what retention and the cap no longer allow.
   * The caller checked that the service remembers.
   */
  async keep(serviceId: string, faces: readonly UnnamedFace[], seenIn: SeenIn): Promise<void> {
    if (faces.length === 0) return;
    const sharp = await loadSharp();
    const thumbnails = await Promise.all(faces.map((face) => sharp(face.crop).resize({ height: THUMBNAIL_HEIGHT, withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer()));
    const seen = this.now().toISOString();
    await this.#kept.write(serviceId, (db, previous) => this.#load(db, serviceId, previous), async (tx, kept) => {
      const added: HeldFace[] = [];
      // The groups this image's faces joined: one image shows a person once.
      const joined = new Set<string>();
      for (const [index, face] of faces.entries()) {
        let groupId = kept.grouped.groupFor(face.descriptor, joined);
        if (groupId === undefined) {
          groupId = crypto.randomUUID();
          await faceTables(tx).insertInto('unknown_groups').values({ id: groupId, service_id: serviceId, first_seen: seen, last_seen: seen }).execute();
        } else {
          await faceTables(tx).updateTable('unknown_groups').set({ last_seen: seen }).where('id', '=', groupId).execute();
        }
        const id = crypto.randomUUID();
        await faceTables(tx)
          .insertInto('unknown_faces')
          .values({
            id,
            group_id: groupId,
            service_id: serviceId,
            descriptor_ciphertext: this.#descriptors.encrypt(toText(face.descriptor), id),
            descriptor_kind: DESCRIPTOR_KIND,
            thumbnail_ciphertext: this.#thumbnails.encrypt(thumbnails[index].toString('base64'), id),
            seen_at: seen,
            frame_id: seenIn.frameId ?? null,
            source_id: seenIn.sourceId ?? null,
            face_height: Math.round(face.height),
            confidence: face.confidence,
          })
          .execute();
        kept.grouped.add(id, groupId, face.descriptor);
        joined.add(groupId);
        added.push({ id, groupId, seen });
      }
      const latest = kept.faces.at(-1);
      kept.faces.push(...added.sort(oldestFirst));
      // Another replica's clock ahead of this one's kept a face "later": the order is made again.
      if (latest && oldestFirst(latest, added[0]) > 0) kept.faces.sort(oldestFirst);
      await this.#forgetHeld(tx, kept, await this.settings(serviceId, tx));
    });
  }

  /** The service's kept faces, read and decrypted for keeping (but the descriptors `previous` holds already). */
  async #load(db: Database, serviceId: string, previous: KeptFaces | undefined): Promise<KeptFaces> {
    const rows = await faceTables(db).selectFrom('unknown_faces').select(['id', 'group_id', 'descriptor_kind', 'descriptor_ciphertext', 'seen_at']).where('service_id', '=', serviceId).execute();
    const kept: KeptFaces = { grouped: new GroupedFaces(), faces: [] };
    for (const row of rows) {
      kept.faces.push({ id: row.id, groupId: row.group_id, seen: row.seen_at });
      if (row.descriptor_kind !== DESCRIPTOR_KIND) continue;
      kept.grouped.add(row.id, row.group_id, previous?.grouped.descriptorOf(row.id) ?? fromText(this.#descriptors.decrypt(row.descriptor_ciphertext, row.id)));
    }
    kept.faces.sort(oldestFirst);
    return kept;
  }

  /** Forgets the held faces past the service's retention and beyond its cap (oldest first), and the groups they leave empty: by id, what the memory holds telling which. */
  async #forgetHeld(db: Database, kept: KeptFaces, settings: UnknownFaceSettings): Promise<void> {
    const oldest = new Date(this.now().getTime() - settings.retentionDays * DAY_MS).toISOString();
    let count = Math.max(0, kept.faces.length - settings.maxFaces);
    while (count < kept.faces.length && kept.faces[count].seen < oldest) count++;
    if (count === 0) return;
    const forgotten = kept.faces.splice(0, count);
    for (let at = 0; at < forgotten.length; at += IDS_PER_DELETE) {
      await faceTables(db).deleteFrom('unknown_faces').where('id', 'in', forgotten.slice(at, at + IDS_PER_DELETE).map((face) => face.id)).execute();
    }
    const left = new Set(kept.faces.map((face) => face.groupId));
    const emptied = [...new Set(forgotten.map((face) => face.groupId))].filter((groupId) => !left.has(groupId));
    for (const face of forgotten) kept.grouped.remove(face.id);
    for (let at = 0; at < emptied.length; at += IDS_PER_DELETE) await faceTables(db).deleteFrom('unknown_groups').where('id', 'in', emptied.slice(at, at + IDS_PER_DELETE)).execute();
  }

  /** Forgets the service's faces past its retention and beyond its cap (oldest first), then the groups left empty; raises the version when it forgot any. Run in a transaction. */
  async #purge(tx: Database, serviceId: string, settings: UnknownFaceSettings): Promise<void> {
    const oldest = new Date(this.now().getTime() - settings.retentionDays * DAY_MS).toISOString();
    const expired = await faceTables(tx).deleteFrom('unknown_faces').where('service_id', '=', serviceId).where('seen_at', '<', oldest).executeTakeFirst();
    const beyondCap = await faceTables(tx).selectFrom('unknown_faces').select('id').where('service_id', '=', serviceId).orderBy('seen_at', 'desc').orderBy('id', 'desc').offset(settings.maxFaces).limit(MAX_UNKNOWN_FACES).execute();
    if (Number(expired.numDeletedRows) === 0 && beyondCap.length === 0) return;
    await bumpMemoryVersion(tx, serviceId, 'unknown-faces');
    for (let at = 0; at < beyondCap.length; at += IDS_PER_DELETE) {
      await faceTables(tx).deleteFrom('unknown_faces').where('id', 'in', beyondCap.slice(at, at + IDS_PER_DELETE).map((row) => row.id)).execute();
    }
    await faceTables(tx)
      .deleteFrom('unknown_groups')
      .where('service_id', '=', serviceId)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('unknown_faces').select('unknown_faces.id').whereRef('unknown_faces.group_id', '=', 'unknown_groups.id'))))
      .execute();
  }

  /** Forgets, for every service, the faces past its retention (the periodic sweep: a service that sees no face still forgets). */
  async purgeAll(): Promise<void> {
    const services = await faceTables(this.db).selectFrom('unknown_groups').select('service_id').distinct().execute();
    for (const { service_id } of services) {
      const settings = await this.settings(service_id);
      await this.db.transaction().execute((tx) => this.#purge(tx, service_id, settings));
    }
  }

  /** The service's unknown people, most recently seen first. */
  async list(serviceId: string): Promise<UnknownPerson[]> {
    const [groups, faces] = await Promise.all([
      faceTables(this.db).selectFrom('unknown_groups').selectAll().where('service_id', '=', serviceId).orderBy('last_seen', 'desc').orderBy('id').execute(),
      faceTables(this.db).selectFrom('unknown_faces').select(['id', 'group_id', 'face_height', 'confidence']).where('service_id', '=', serviceId).execute(),
    ]);
    const byGroup = new Map<string, typeof faces>();
    for (const face of faces) byGroup.set(face.group_id, [...(byGroup.get(face.group_id) ?? []), face]);
    return groups.map((group) => {
      const members = (byGroup.get(group.id) ?? []).sort(byQuality);
      return { id: group.id, faces: members.length, firstSeen: group.first_seen, lastSeen: group.last_seen, bestFaces: members.slice(0, LISTED_BEST_FACES).map((face) => face.id) };
    });
  }

  /** The unknown person's kept faces, oldest first; undefined when the service has no such group. */
  async faces(serviceId: string, groupId: string): Promise<UnknownFaceSeen[] | undefined> {
    if (!(await this.#owns(serviceId, groupId))) return undefined;
    const rows = await faceTables(this.db)
      .selectFrom('unknown_faces')
      .select(['id', 'seen_at', 'frame_id', 'source_id', 'face_height', 'confidence'])
      .where('service_id', '=', serviceId)
      .where('group_id', '=', groupId)
      .orderBy('seen_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: row.id, seen: row.seen_at, frameId: row.frame_id, sourceId: row.source_id, height: row.face_height, confidence: row.confidence }));
  }

  /** The kept face's thumbnail (JPEG bytes); undefined when the group has no such face. */
  async thumbnail(serviceId: string, groupId: string, faceId: string): Promise<Buffer | undefined> {
    const row = await faceTables(this.db)
      .selectFrom('unknown_faces')
      .select(['id', 'thumbnail_ciphertext'])
      .where('service_id', '=', serviceId)
      .where('group_id', '=', groupId)
      .where('id', '=', faceId)
      .executeTakeFirst();
    return row && Buffer.from(this.#thumbnails.decrypt(row.thumbnail_ciphertext, row.id), 'base64');
  }

  /**
   * Registers the unknown person's best faces (`count` at most) under `name` — a new person,
   * or photos added to one registered — then forgets the group and its kept faces. Undefined when
   * the service has no such group; a bad name is the gallery's FaceGalleryError.
   */
  async name(serviceId: string, groupId: string, name: string, count: number = NAMED_FACES): Promise<NamedUnknown | undefined> {
    if (!(Number.isInteger(count) && count >= 1 && count <= MAX_NAMED_FACES)) throw new UnknownPeopleError('invalid_face_count', `faces is a whole number from 1 to ${MAX_NAMED_FACES}`);
    const rows = await faceTables(this.db)
      .selectFrom('unknown_faces')
      .select(['id', 'descriptor_ciphertext', 'face_height', 'confidence'])
      .where('service_id', '=', serviceId)
      .where('group_id', '=', groupId)
      .where('descriptor_kind', '=', DESCRIPTOR_KIND)
      .execute();
    if (rows.length === 0) return undefined;
    const best = rows.sort(byQuality).slice(0, count);
    // A kept face's photo is not kept: its height is all it is judged by.
    const samples = best.map((row) => ({ descriptor: fromText(this.#descriptors.decrypt(row.descriptor_ciphertext, row.id)), weak: heightWarning(row.face_height) !== undefined }));
    const { person } = await this.gallery.register(serviceId, name, samples);
    await this.forget(serviceId, groupId);
    return { person, registered: best.length, weak: samples.filter((sample) => sample.weak).length };
  }

  /** Moves every face of `groupId` into `intoId` and forgets `groupId`; the merged person, or undefined when the service lacks either group. */
  async merge(serviceId: string, groupId: string, intoId: string): Promise<UnknownPerson | undefined> {
    if (groupId === intoId) throw new UnknownPeopleError('same_group', 'an unknown person cannot be merged into itself');
    const merged = await this.db.transaction().execute(async (tx) => {
      await bumpMemoryVersion(tx, serviceId, 'unknown-faces');
      const groups = await faceTables(tx).selectFrom('unknown_groups').selectAll().where('service_id', '=', serviceId).where('id', 'in', [groupId, intoId]).execute();
      if (groups.length !== 2) return false;
      const firstSeen = groups.map((group) => group.first_seen).sort()[0];
      const lastSeen = groups.map((group) => group.last_seen).sort()[1];
      await faceTables(tx).updateTable('unknown_faces').set({ group_id: intoId }).where('group_id', '=', groupId).execute();
      await faceTables(tx).updateTable('unknown_groups').set({ first_seen: firstSeen, last_seen: lastSeen }).where('id', '=', intoId).execute();
      await faceTables(tx).deleteFrom('unknown_groups').where('id', '=', groupId).execute();
      return true;
    });
    if (!merged) return undefined;
    return (await this.list(serviceId)).find((person) => person.id === intoId);
  }

  /** Forgets the unknown person: its group, kept faces and thumbnails deleted at once. False when the service has no such group. */
  async forget(serviceId: string, groupId: string): Promise<boolean> {
    const result = await this.#forgetting(serviceId, (tx) => faceTables(tx).deleteFrom('unknown_groups').where('service_id', '=', serviceId).where('id', '=', groupId).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }

  /** Forgets every unknown person of the service; how many. */
  async forgetAll(serviceId: string): Promise<number> {
    const result = await this.#forgetting(serviceId, (tx) => faceTables(tx).deleteFrom('unknown_groups').where('service_id', '=', serviceId).executeTakeFirst());
    return Number(result.numDeletedRows);
  }

  /** A kept face's descriptor and height, for a correction sent with its id (people-routes.ts); undefined when the service kept no such face. */
  async keptFace(serviceId: string, faceId: string): Promise<{ readonly descriptor: Float32Array; readonly height: number } | undefined> {
    const row = await faceTables(this.db)
      .selectFrom('unknown_faces')
      .select(['id', 'descriptor_ciphertext', 'face_height'])
      .where('service_id', '=', serviceId)
      .where('id', '=', faceId)
      .where('descriptor_kind', '=', DESCRIPTOR_KIND)
      .executeTakeFirst();
    return row && { descriptor: fromText(this.#descriptors.decrypt(row.descriptor_ciphertext, row.id)), height: row.face_height };
  }

  /** Forgets one kept face (it was added to a registered person), and its unknown person with it when it was their last. */
  async forgetFace(serviceId: string, faceId: string): Promise<void> {
    await this.#forgetting(serviceId, async (tx) => {
      const face = await faceTables(tx).selectFrom('unknown_faces').select('group_id').where('service_id', '=', serviceId).where('id', '=', faceId).executeTakeFirst();
      if (!face) return;
      await faceTables(tx).deleteFrom('unknown_faces').where('id', '=', faceId).execute();
      const left = await faceTables(tx).selectFrom('unknown_faces').select('id').where('group_id', '=', face.group_id).executeTakeFirst();
      if (!left) await faceTables(tx).deleteFrom('unknown_groups').where('id', '=', face.group_id).execute();
    });
  }

  /** A deletion of kept faces, in a transaction that raises the version first (so the held faces are read again), then their bytes erased from the disk. */
  async #forgetting<R>(serviceId: string, deletion: (tx: Database) => Promise<R>): Promise<R> {
    const result = await this.db.transaction().execute(async (tx) => {
      await bumpMemoryVersion(tx, serviceId, 'unknown-faces');
      return deletion(tx);
    });
    await eraseDeleted(this.db);
    return result;
  }

  async #owns(serviceId: string, groupId: string): Promise<boolean> {
    return (await faceTables(this.db).selectFrom('unknown_groups').select('id').where('service_id', '=', serviceId).where('id', '=', groupId).executeTakeFirst()) !== undefined;
  }
}
