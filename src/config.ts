import os from 'node:os';
import path from 'node:path';
import type { SignUpPolicy } from './accounts/sign-up.js';
import type { InferenceSettings, ModelSources, ModelsFolder } from './models/model-repository.js';

/**
 * Every setting of the service, read once in the composition root and passed down frozen.
 * Nothing below `main.ts` reads `process.env`. docs/configuration.md documents each entry.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** ONNX model file(s) to serve; the first is the default for new services. Empty (and no model file in `modelsDir`): the embedded default. */
  readonly modelPaths: readonly string[];
  /**
   * Model repository folder: every `*.onnx` in it is served too, each with an optional `<name>.json`
   * configuration. DETECTD_MODELS_DIR, else DEFAULT_MODELS_DIR, where `detectd models pull` puts models.
   */
  readonly modelsDir: ModelsFolder;
  /** Base URL of a mirror of the model catalogue's files, which `detectd models pull` downloads from instead of their upstream URLs. */
  readonly modelsMirror: string | undefined;
  /**
   * Base URL standing in for GitHub's raw file host (https://raw.githubusercontent.com) in the
   * catalogue's upstream URLs: a local copy of the upstream repositories, for tests and machines
   * that keep one.
   */
  readonly modelsRawUrl: string | undefined;
  /** The model services naming none are answered by (a model name); absent: the first of `modelPaths`, else of `modelsDir` by name. */
  readonly defaultModel: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL connection string; when absent the embedded SQLite database in `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  /** Server secret for API-key hashing and encryption; when absent one is generated and kept in `dataDir`. Required with `databaseUrl`. */
  readonly secret: string | undefined;
  /** How long a rotated-out API key keeps working when its owner asks for a grace period, seconds. */
  readonly keyRotationGraceSeconds: number;
  /** Base URL that callers reach this service at (shown in the console); when absent, taken from each console request. */
  readonly publicUrl: string | undefined;
  /**
   * Which proxies in front of the service to believe about the client (X-Forwarded-For/-Proto),
   * in Express's `trust proxy` syntax: a hop count, or addresses/subnets/`loopback`. Absent: none.
   */
  readonly trustProxy: number | string | undefined;
  /** Who may create an account in the console (`DETECTD_SIGNUP`: open, invite or closed; unset: invite). */
  readonly signUp: SignUpPolicy;
  readonly logLevel: string;
  readonly limits: Limits;
  readonly inference: InferenceSettings;
  readonly stream: StreamSettings;
}

export interface Limits {
  /** Largest accepted request body, bytes. */
  readonly maxBodyBytes: number;
  /** Largest accepted decoded image, pixels (width × height), checked from the header before decoding. */
  readonly maxImagePixels: number;
  /** Most objects returned for one image. */
  readonly maxDetections: number;
  /** A request still waiting for the model after this long is answered 503. */
  readonly requestTimeoutMs: number;
  /** Requests admitted into the decode → inference pipeline at once; beyond this, 503 `overloaded`. */
  readonly maxPendingRequests: number;
  /** The request line and headers must arrive within this long, else 408 and the connection is closed. */
  readonly headersTimeoutMs: number;
  /** A request body must arrive whole within this long, else 408 and the connection is closed. */
  readonly bodyTimeoutMs: number;
  /** Bytes of request bodies held at once across all requests (arriving or not yet answered); past it, 503 `overloaded`. */
  readonly maxUploadBytes: number;
}

/** The models folder when DETECTD_MODELS_DIR is not set: read if it exists (docs/models.md). */
export const DEFAULT_MODELS_DIR = './models';

/**
 * Default runs of a model at once: one per inference thread, up to 4 (each single-threaded session
 * holds tens of MB; beyond 4 the shared sessions get several threads each instead).
 */
const MAX_DEFAULT_CONCURRENCY = 4;

/** The WebSocket video stream (docs/streams.md). */
export interface StreamSettings {
  /** Largest accepted WebSocket message (one frame), bytes; a larger one closes the stream with 1009. */
  readonly maxFrameBytes: number;
  /** Largest accepted frame, pixels (width × height), checked from the header before decoding. */
  readonly maxFramePixels: number;
  /** Streams open at once on this server; further upgrades are refused with 503 `overloaded`. */
  readonly maxStreams: number;
  /** A stream that sends nothing for this long while no frame of it is in work is closed (4408). */
  readonly idleTimeoutMs: number;
  /** The server pings each stream this often; one that has not answered the previous ping is dropped. */
  readonly pingIntervalMs: number;
  /** Lifetime of a single-use stream token. */
  readonly tokenTtlMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  }
  return value;
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(`${name} must be a number in [0, 1], got "${raw}"`);
  }
  return value;
}

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

export class ConfigError extends Error {}

/** The settings that say which models to serve and which is the default, as the model repository reads them. */
export function modelSourcesOf(config: Config): ModelSources {
  return { modelPaths: config.modelPaths, modelsDir: config.modelsDir, defaultModel: config.defaultModel };
}

const SIGN_UP_SETTINGS: Record<string, SignUpPolicy> = { open: 'open', invite: 'invite', closed: 'closed' };

function signUpSetting(raw: string | undefined): SignUpPolicy {
  if (raw === undefined) return 'invite';
  const policy = SIGN_UP_SETTINGS[raw.toLowerCase()];
  if (!policy) throw new ConfigError(`DETECTD_SIGNUP must be open, invite or closed (unset: invite — the first account, then invitation links), got "${raw}"`);
  return policy;
}

/** A hop count stays a number (Express reads "1" as an address otherwise). */
function trustProxySetting(raw: string | undefined): number | string | undefined {
  if (raw === undefined) return undefined;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/**
 * Every setting from `env`, checked. `cores` (the CPUs this process may use) sets the inference
 * defaults: given, so that what the defaults are on another machine can be shown on this one.
 */
export function loadConfig(env: Env = process.env, cores: number = Math.max(1, os.availableParallelism())): Config {
  const threads = integer(env, 'DETECTD_INFERENCE_THREADS', cores, 1, 256);
  const secret = text(env, 'DETECTD_SECRET');
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('DETECTD_SECRET must be at least 32 characters');
  }
  const databaseUrl = text(env, 'DETECTD_DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(?:ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DETECTD_DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  if (databaseUrl !== undefined && secret === undefined) {
    // Replicas of one database must hash and encrypt keys alike: a per-process secret would lock the others out.
    throw new ConfigError('DETECTD_DATABASE_URL needs DETECTD_SECRET, the same on every replica');
  }
  const modelsDir = text(env, 'DETECTD_MODELS_DIR');
  const modelsMirror = text(env, 'DETECTD_MODELS_MIRROR')?.replace(/\/+$/, '');
  if (modelsMirror !== undefined && !/^https?:\/\//.test(modelsMirror)) throw new ConfigError('DETECTD_MODELS_MIRROR must be an http:// or https:// base URL');
  const modelsRawUrl = text(env, 'DETECTD_MODELS_RAW_URL')?.replace(/\/+$/, '');
  if (modelsRawUrl !== undefined && !/^https?:\/\//.test(modelsRawUrl)) throw new ConfigError('DETECTD_MODELS_RAW_URL must be an http:// or https:// base URL');
  const publicUrl = text(env, 'DETECTD_PUBLIC_URL')?.replace(/\/+$/, '');
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) throw new ConfigError('DETECTD_PUBLIC_URL must be an absolute URL');
  const config: Config = {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    modelPaths: (text(env, 'DETECTD_MODEL') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map((entry) => path.resolve(entry)),
    modelsDir: { path: path.resolve(modelsDir ?? DEFAULT_MODELS_DIR), required: modelsDir !== undefined },
    modelsMirror,
    modelsRawUrl,
    defaultModel: text(env, 'DETECTD_DEFAULT_MODEL'),
    dataDir: path.resolve(text(env, 'DETECTD_DATA_DIR') ?? './data'),
    databaseUrl,
    secret,
    keyRotationGraceSeconds: integer(env, 'DETECTD_KEY_ROTATION_GRACE_SECONDS', 24 * 3600, 1, 90 * 24 * 3600),
    publicUrl,
    trustProxy: trustProxySetting(text(env, 'DETECTD_TRUST_PROXY')),
    signUp: signUpSetting(text(env, 'DETECTD_SIGNUP')),
    logLevel: text(env, 'DETECTD_LOG_LEVEL') ?? 'info',
    limits: {
      maxBodyBytes: integer(env, 'DETECTD_MAX_BODY_BYTES', 20 * 1024 * 1024, 1024, 1024 ** 3),
      maxImagePixels: integer(env, 'DETECTD_MAX_IMAGE_PIXELS', 40_000_000, 1, 1_000_000_000),
      maxDetections: integer(env, 'DETECTD_MAX_DETECTIONS', 300, 1, 10_000),
      requestTimeoutMs: integer(env, 'DETECTD_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
      maxPendingRequests: integer(env, 'DETECTD_MAX_PENDING_REQUESTS', 32, 1, 100_000),
      headersTimeoutMs: integer(env, 'DETECTD_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      bodyTimeoutMs: integer(env, 'DETECTD_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      maxUploadBytes: integer(env, 'DETECTD_MAX_UPLOAD_BYTES', 512 * 1024 * 1024, 1024, 64 * 1024 ** 3),
    },
    inference: {
      threads,
      concurrency: integer(env, 'DETECTD_INFERENCE_CONCURRENCY', Math.min(threads, MAX_DEFAULT_CONCURRENCY), 1, 64),
      nmsIou: fraction(env, 'DETECTD_NMS_IOU', 0.7),
    },
    stream: {
      maxFrameBytes: integer(env, 'DETECTD_STREAM_MAX_FRAME_BYTES', 4 * 1024 * 1024, 1024, 256 * 1024 * 1024),
      maxFramePixels: integer(env, 'DETECTD_STREAM_MAX_FRAME_PIXELS', 3840 * 2160, 1, 1_000_000_000),
      maxStreams: integer(env, 'DETECTD_STREAM_MAX_STREAMS', 16, 0, 10_000),
      idleTimeoutMs: integer(env, 'DETECTD_STREAM_IDLE_TIMEOUT_MS', 30_000, 100, 3_600_000),
      pingIntervalMs: integer(env, 'DETECTD_STREAM_PING_INTERVAL_MS', 15_000, 100, 3_600_000),
      tokenTtlMs: integer(env, 'DETECTD_STREAM_TOKEN_TTL_MS', 60_000, 1_000, 3_600_000),
    },
  };
  if (config.limits.maxUploadBytes < config.limits.maxBodyBytes) {
    throw new ConfigError('DETECTD_MAX_UPLOAD_BYTES must be at least DETECTD_MAX_BODY_BYTES');
  }
  return deepFreeze(config);
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (inner !== null && typeof inner === 'object') deepFreeze(inner as object);
  }
  return Object.freeze(value);
}
