import type { Generated } from 'kysely';

export type AccountRole = 'admin' | 'member';

/**
 * The database's tables as Kysely sees them. Ids are UUID text and times ISO-8601 UTC text, so
 * the same queries run unchanged on SQLite and PostgreSQL.
 */
export interface Tables {
  accounts: {
    id: string;
    email: string;
    password_hash: string;
    created_at: string;
    /** Set while an operator has disabled the account: its keys and console sign-in are refused. */
    disabled_at: string | null;
    /** `admin` (the first account: may invite) or `member`. */
    role: Generated<AccountRole>;
  };
  invitations: {
    id: string;
    /** SHA-256 of the invitation link's token. */
    token_hash: string;
    created_by: string;
    created_at: string;
    expires_at: string;
    used_at: string | null;
  };
  services: {
    id: string;
    account_id: string;
    name: string;
    type: string;
    /** Detector name; null means the server's default model. */
    model: string | null;
    created_at: string;
    disabled_at: string | null;
    /** Space-separated CIDR ranges whose DeepStack-style calls need no key; null: keyless calls are off (the default). */
    keyless_address_ranges: string | null;
    /** Requests a minute the service may make; null: no rate limit. */
    rate_limit_per_minute: number | null;
    /** Calls a UTC calendar month the service may make; null: no quota. */
    monthly_quota: number | null;
    /** At most this many predictions in a DeepStack / CodeProject.AI answer; null: no cap. */
    deepstack_max_predictions: number | null;
    /** The rate limiter's theoretical arrival time (GCRA), epoch ms; null until the first limited call. */
    rate_tat_ms: number | null;
    /** Face services: the similarity in [0, 1] a face must reach to be named; null: the default (faces/face-similarity.ts). */
    face_match_threshold: number | null;
    /** Face services: 1 while the owner keeps the faces no one is named for (faces/unknown-people.ts); 0, the default, keeps none. */
    remember_unknown_faces: Generated<number>;
    /** Face services: kept unknown faces are forgotten this many days after they were seen. */
    unknown_faces_retention_days: Generated<number>;
    /** Face services: at most this many unknown faces are kept; the oldest go first. */
    unknown_faces_max: Generated<number>;
  };
  /** A face service's registered people (src/faces/). */
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
  /** The version of what a service remembers (store/memory-versions.ts), raised by every write to it. */
  memory_versions: {
    service_id: string;
    /** Which memory: MemoryName. */
    memory: string;
    version: number;
  };
  service_monthly_calls: {
    service_id: string;
    /** UTC month, `YYYY-MM`. */
    month: string;
    calls: number;
  };
  api_keys: {
    id: string;
    service_id: string;
    /** HMAC-SHA256 of the key under the server secret; the key itself is never stored in plain text. */
    key_hash: string;
    created_at: string;
    /** When a rotated-out key stops working; null while current. */
    expires_at: string | null;
    revoked_at: string | null;
    /** AES-256-GCM ciphertext of the key (see accounts/key-cipher.ts), so its owner can read it again; null for keys issued before it existed. */
    key_ciphertext: string | null;
  };
  console_sessions: {
    /** SHA-256 of the session cookie's token: a leaked table does not hand out sessions. */
    token_hash: string;
    account_id: string;
    created_at: string;
    expires_at: string;
  };
  sign_in_failures: {
    id: string;
    /** Hash of the email and client address the failure counts against. */
    subject: string;
    /** Hash of the email alone: an operator's unlock forgets its failures from every address. */
    email_hash: string;
    failed_at: string;
  };
  usage_counters: {
    service_id: string;
    /** UTC minute, `YYYY-MM-DDTHH:MM`. */
    minute: string;
    /** `requests`, `images`, `detections`, `error:<code>` or `latency:<bucket>` (see usage/latency-histogram.ts). */
    counter: string;
    value: number;
  };
  stream_tokens: {
    /** SHA-256 of the token: a leaked table opens no stream. */
    token_hash: string;
    service_id: string;
    expires_at: string;
  };
}
