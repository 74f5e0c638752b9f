import type { Generated, Kysely } from 'kysely';
import type { Database } from '../../../store/database.js';
import type { Tables } from '../../../store/tables.js';

/**
 * The faces' tables and columns (migrations/: 0009, 0011, 0013, 0014, 0016, 0018), which the store's
 * tables know nothing of. A type, not an interface: Kysely's withTables takes a record.
 */
export type FaceTables = {
  services: {
    /** Face services: the similarity in [0, 1] a face must reach to be named; null: the default (faces/face-similarity.ts). */
    face_match_threshold: number | null;
    /** Face services: 1 while the owner keeps the faces no one is named for (faces/unknown-people.ts); 0, the default, keeps none. */
    remember_unknown_faces: Generated<number>;
    /** Face services: kept unknown faces are forgotten this many days after they were seen. */
    unknown_faces_retention_days: Generated<number>;
    /** Face services: at most this many unknown faces are kept; the oldest go first. */
    unknown_faces_max: Generated<number>;
  };
  /** A face service's registered people (faces/face-gallery.ts). */
  face_people: {
    id: string;
    service_id: string;
    /** The name its client registered the person under (DeepStack's `userid`). */
    userid: string;
    /** `userid` with case and Unicode composition folded: unique within the service (faces/face-gallery.ts). */
    userid_key: string;
    created_at: string;
  };
  /** One face descriptor of a registered person: biometric data, so encrypted like API keys. */
  face_samples: {
    id: string;
    person_id: string;
    /** AES-256-GCM ciphertext (accounts/key-cipher.ts, purpose `face-descriptor`) of the descriptor's float32 bytes, bound to this row's id. */
    descriptor_ciphertext: string;
    /** Which pipeline made the descriptor (faces/face-gallery.ts DESCRIPTOR_KIND): only descriptors of one kind are comparable. */
    descriptor_kind: Generated<string>;
    /** 1 when the photo was weak (faces/face-quality.ts warnings: small, soft, turned): the sample counts only for a person with no good one. */
    weak: Generated<number>;
    created_at: string;
  };
  /** An unknown person of a face service: a group of kept faces alike enough to be one person (faces/unknown-people.ts). */
  unknown_groups: {
    id: string;
    service_id: string;
    first_seen: string;
    last_seen: string;
  };
  /** A face a face service could not name, kept while its owner remembers unknown faces: biometric data, encrypted like face_samples. */
  unknown_faces: {
    id: string;
    group_id: string;
    service_id: string;
    /** AES-256-GCM ciphertext (purpose `face-descriptor`) of the descriptor's float32 bytes, bound to this row's id. */
    descriptor_ciphertext: string;
    /** faces/face-gallery.ts DESCRIPTOR_KIND of the descriptor. */
    descriptor_kind: string;
    /** AES-256-GCM ciphertext (purpose `unknown-face-thumbnail`) of a small JPEG of the face, bound to this row's id. */
    thumbnail_ciphertext: string;
    seen_at: string;
    /** The `frame_id` and `source_id` the face's image came with, when it came with them. */
    frame_id: string | null;
    source_id: string | null;
    /** The face's height in the image, pixels. */
    face_height: number;
    /** The detector's confidence that it is a face. */
    confidence: number;
  };
  face_negatives: {
    id: string;
    /** The registered person this face is NOT (faces/face-gallery.ts: "not this person"). */
    person_id: string;
    /** AES-256-GCM ciphertext of the descriptor's float32 bytes, as face_samples', bound to this row's id. */
    descriptor_ciphertext: string;
    descriptor_kind: string;
    created_at: string;
  };
};

/** The database, or a transaction on it, with the faces' tables. */
export type FaceDatabase = Kysely<Tables & FaceTables>;

/** `db` (the database, or a transaction on it) with the faces' tables. */
export const faceTables = <Db extends Pick<Database, 'withTables'>>(db: Db) => db.withTables<FaceTables>();

/** The faces' tables, each after the tables its foreign keys point at: the order their rows can be copied (Feature.tables). */
export const FACE_TABLES = ['face_people', 'face_samples', 'face_negatives', 'unknown_groups', 'unknown_faces'] as const satisfies readonly (keyof FaceTables)[];
