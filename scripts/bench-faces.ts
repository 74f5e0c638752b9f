/**
 * Face call benchmark: the real server in this process with a face model (the embedded YuNet-n unless
 * `--face-model` names another), one face call timed against the face model's raw ONNX Runtime
 * inference — detection alone, then detection and recognition of every face with nobody registered,
 * with 3 people, then with 1,000 people; and keeping unknown faces with none kept, then with 10,000
 * (`npm run bench -- --sections faces`). What a face call costs must not
 * grow with what the service remembers: the ratios printed are the goals' (docs/performance.md).
 */
import './lib/typescript-workers.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sessionOptions } from '../src/models/runtimes/onnx/onnx-session-options.js';
import { KeyCipher } from '../src/accounts/key-cipher.js';
import { loadServerSecret } from '../src/accounts/server-secret.js';
import { DESCRIPTOR_KIND, FaceGallery, fromText, toText } from '../src/features/faces/gallery/face-gallery.js';
import { UNKNOWN_DESCRIPTOR_PURPOSE, UNKNOWN_THUMBNAIL_PURPOSE } from '../src/features/faces/gallery/unknown-people.js';
import { percentile } from './lib/bench-numbers.js';
import { type LocalServer, startLocalServer } from './lib/local-server.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';
import { faceSimilarity } from '../src/features/faces/gallery/face-similarity.js';

export interface FaceBenchmarkOptions {
  /** The object model the server loads beside the face model. */
  readonly objectModel: string;
  readonly faceModel: string;
  /** Sequential requests per phase. */
  readonly requests: number;
  readonly threads: number;
}

const FACES = '../shared/eval/faces';
/** bbt1: four faces (Raj, Leonard, Howard, Sheldon); three of them get registered. */
const GROUP_PHOTO = path.join(FACES, 'bbt1.jpg');
const REGISTERED = ['raj', 'leonard', 'howard'];
/** The large gallery: this many people in all, each with SAMPLES_EACH photos (made-up descriptors beside the three real people). */
const MANY_PEOPLE = 1000;
const SAMPLES_EACH = 3;
/** The large memory of unknown faces: this many kept, in groups of FACES_PER_GROUP. */
const MANY_KEPT = 10_000;
const FACES_PER_GROUP = 10;
const DESCRIPTOR_LENGTH = 128;

const median = (values: number[]) => percentile(values, 50);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** Milliseconds of one run of the face model on an input of its size (the time does not depend on the pixels). */
async function rawFaceInference(modelPath: string, threads: number): Promise<{ runOnce: () => Promise<number>; release: () => Promise<void> }> {
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(threads));
  const metadata = session.inputMetadata[0];
  // A model of dynamic input size (YuNet) is timed at 640 × 480.
  const declared = metadata.isTensor ? metadata.shape : [];
  const [height, width] = [declared[2], declared[3]].map((side, index) => (typeof side === 'number' ? side : [480, 640][index]));
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', new Float32Array(3 * width * height), [1, 3, height, width]) };
  const runOnce = async () => {
    const started = performance.now();
    await session.run(feeds);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) await runOnce();
  return { runOnce, release: () => session.release() };
}

/** Median per-stage timings of the server's request log lines from `from` on. */
function stageMedians(logText: string): string {
  const byStage = new Map<string, number[]>();
  for (const line of logText.split('\n')) {
    if (!line.includes('"timings_ms"')) continue;
    for (const [stage, ms] of Object.entries((JSON.parse(line) as { timings_ms: Record<string, number> }).timings_ms)) byStage.set(stage, [...(byStage.get(stage) ?? []), ms]);
  }
  return [...byStage].map(([stage, values]) => `${stage} ${fixed(median(values), 2)}`).join(', ');
}

const gaussian = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
function unit(values: Float32Array): Float32Array {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

/**
 * Made-up faces as alike as real ones: real descriptors lie in a narrow cone (two people's faces
 * are about 0.72 alike inside, one person's about 0.84: docs/faces.md), and how soon keeping's
 * comparison of two faces stops depends on it (unknown-grouping.ts), so random directions (about
 * 0.3 alike) would flatter it. A face is the real faces' mean direction, its person's own, and a
 * little noise, in shares that give those two figures (printed beside the results).
 */
function madeUpFaces(realFaces: readonly Float32Array[]) {
  const mean = unit(Float32Array.from({ length: DESCRIPTOR_LENGTH }, (_, i) => realFaces.reduce((sum, face) => sum + face[i], 0)));
  // cos = 1 − (2 (1 − similarity))² / 2: 0.843 between two people's faces (0.72), 0.949 within one person's (0.84).
  const [shared, own, noise] = [Math.sqrt(0.843), Math.sqrt(0.949 - 0.843), Math.sqrt((1 - 0.949) / DESCRIPTOR_LENGTH)];
  return {
    person: () => unit(Float32Array.from({ length: DESCRIPTOR_LENGTH }, gaussian)),
    face: (person: Float32Array) => unit(Float32Array.from({ length: DESCRIPTOR_LENGTH }, (_, i) => shared * mean[i] + own * person[i] + noise * gaussian())),
  };
}

/** The median of `pairs` similarities drawn by `pair`. */
const medianSimilarity = (pair: () => [Float32Array, Float32Array], pairs = 200) => median(Array.from({ length: pairs }, () => faceSimilarity(...pair())));

/** Bytes of the heap and of array buffers after a full garbage collection. */
function heldBytes(): number {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** `count` kept unknown faces of made-up people straight into the database, as keeping them would have (their thumbnails a placeholder: keeping never reads them). */
async function fillUnknownFaces(db: LocalServer['db'], secret: string, serviceId: string, count: number, madeUp: ReturnType<typeof madeUpFaces>): Promise<void> {
  const descriptors = new KeyCipher(secret, UNKNOWN_DESCRIPTOR_PURPOSE);
  const thumbnails = new KeyCipher(secret, UNKNOWN_THUMBNAIL_PURPOSE);
  const seen = new Date().toISOString();
  for (let group = 0; group < count / FACES_PER_GROUP; group++) {
    const groupId = crypto.randomUUID();
    const person = madeUp.person();
    await faceTables(db).insertInto('unknown_groups').values({ id: groupId, service_id: serviceId, first_seen: seen, last_seen: seen }).execute();
    const faces = Array.from({ length: FACES_PER_GROUP }, () => {
      const id = crypto.randomUUID();
      return {
        id,
        group_id: groupId,
        service_id: serviceId,
        descriptor_ciphertext: descriptors.encrypt(toText(madeUp.face(person)), id),
        descriptor_kind: DESCRIPTOR_KIND,
        thumbnail_ciphertext: thumbnails.encrypt('', id),
        seen_at: seen,
        frame_id: null,
        source_id: null,
        face_height: 100,
        confidence: 0.9,
      };
    });
    await faceTables(db).insertInto('unknown_faces').values(faces).execute();
  }
}

export async function runFaceBenchmark(options: FaceBenchmarkOptions): Promise<string[]> {
  const server = await startLocalServer({ DETECTD_MODEL: `${path.resolve(options.objectModel)},${path.resolve(options.faceModel)}`, DETECTD_LOG_LEVEL: 'info' });
  try {
    const photo = new Uint8Array(fs.readFileSync(GROUP_PHOTO));
    const secret = loadServerSecret(undefined, server.dataDir);
    const serviceOf = async (key: string) => (await server.domain.keys.authenticate(key))!.id;
    // Once more on a new connection when the server closed an idle one (setting the cases up takes minutes).
    const send = (url: string, init: RequestInit) => fetch(url, init).catch(() => fetch(url, init));
    const photoForm = () => {
      const form = new FormData();
      form.append('image', new Blob([photo]), 'bbt1.jpg');
      return form;
    };
    // Recognition through Nvision's route; detection alone through DeepStack's, which describes no face: what recognition adds.
    const call = async (key: string) => {
      const started = performance.now();
      const response =
        key === cases.detectOnly
          ? await send(`${server.url}/v1/vision/face`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: photoForm() })
          : await send(`${server.url}/api/v1/face-detection`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'image/jpeg' }, body: photo });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      await response.json();
      return performance.now() - started;
    };
    const register = async (key: string, person: string) => {
      const form = new FormData();
      form.append('userid', person);
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(FACES, person, `${person}1.png`)))]), `${person}.png`);
      const registered = await send(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
      if (registered.status !== 200) throw new Error(`register ${person}: HTTP ${registered.status}`);
    };
    const rememberOn = async (key: string) => {
      const response = await send(`${server.url}/api/v1/face-detection/unknown-people/settings`, {
        method: 'PUT',
        headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ remember: true, max_faces: 100_000 }),
      });
      if (response.status !== 200) throw new Error(`remember: HTTP ${response.status}`);
    };

    const raw = await rawFaceInference(path.resolve(options.faceModel), options.threads);
    const rawTimes: number[] = [];
    for (let i = 0; i < options.requests; i++) rawTimes.push(await raw.runOnce());
    await raw.release();

    // One service for each case, each with what it remembers before its first call.
    const cases = {
      detectOnly: await server.createService({ name: 'detection alone', type: 'face-detection' }),
      nobody: await server.createService({ name: 'nobody registered', type: 'face-detection' }),
      few: await server.createService({ name: `${REGISTERED.length} people`, type: 'face-detection' }),
      many: await server.createService({ name: `${MANY_PEOPLE} people`, type: 'face-detection' }),
      keepNone: await server.createService({ name: 'keeps faces none kept', type: 'face-detection' }),
      keepMany: await server.createService({ name: `keeps faces ${MANY_KEPT} kept`, type: 'face-detection' }),
    };
    for (const person of REGISTERED) {
      await register(cases.few, person);
      await register(cases.many, person);
    }
    // The photo's four faces as the server describes them (kept by a service of their own): what the made-up faces are made like.
    const sample = await server.createService({ name: 'faces of the photo', type: 'face-detection' });
    await rememberOn(sample);
    await call(sample);
    const cipher = new KeyCipher(secret, UNKNOWN_DESCRIPTOR_PURPOSE);
    const kept = await faceTables(server.db).selectFrom('unknown_faces').select(['id', 'descriptor_ciphertext']).where('service_id', '=', await serviceOf(sample)).execute();
    const realFaces = kept.map((row) => fromText(cipher.decrypt(row.descriptor_ciphertext, row.id)));
    const madeUp = madeUpFaces(realFaces);
    const anyOf = <T>(values: readonly T[]) => values[Math.floor(Math.random() * values.length)];
    const alike = {
      real: median(realFaces.flatMap((a, i) => realFaces.slice(i + 1).map((b) => faceSimilarity(a, b)))),
      twoPeople: medianSimilarity(() => [madeUp.face(madeUp.person()), madeUp.face(madeUp.person())]),
      onePerson: medianSimilarity(() => {
        const person = madeUp.person();
        return [madeUp.face(person), madeUp.face(person)];
      }),
      withReal: medianSimilarity(() => [anyOf(realFaces), madeUp.face(madeUp.person())]),
    };

    const gallery = new FaceGallery(server.db, secret);
    const manyId = await serviceOf(cases.many);
    for (let person = REGISTERED.length; person < MANY_PEOPLE; person++) {
      const face = madeUp.person();
      await gallery.register(manyId, `person ${person}`, Array.from({ length: SAMPLES_EACH }, () => ({ descriptor: madeUp.face(face), weak: false })));
    }
    await rememberOn(cases.keepNone);
    await rememberOn(cases.keepMany);
    await fillUnknownFaces(server.db, secret, await serviceOf(cases.keepMany), MANY_KEPT, madeUp);

    // What the server holds for a service once its first call read it.
    const heldBy = async (key: string) => {
      const before = heldBytes();
      await call(key);
      return heldBytes() - before;
    };
    const heldPerThousandPeople = ((await heldBy(cases.many)) / MANY_PEOPLE) * 1000;
    const heldPerTenThousandKept = ((await heldBy(cases.keepMany)) / MANY_KEPT) * 10_000;

    // The cases' calls in turn, so that all see the same machine (its speed drifts by a quarter within hours).
    const keys = Object.entries(cases);
    for (const [, key] of keys) for (let i = 0; i < 3; i++) await call(key);
    const logStart = server.logText().length;
    const times = new Map(keys.map(([name]) => [name, [] as number[]]));
    for (let i = 0; i < options.requests; i++) for (const [name, key] of keys) times.get(name)!.push(await call(key));
    const log = server.logText().slice(logStart).split('\n');
    const figures = async (name: keyof typeof cases) => {
      const serviceId = await serviceOf(cases[name]);
      const measured = times.get(name)!;
      return `p50 ${fixed(median(measured))} ms, p99 ${fixed(percentile(measured, 99))} ms; stage medians (ms): ${stageMedians(log.filter((line) => line.includes(`"service_id":"${serviceId}"`)).join('\n'))}`;
    };
    const ratio = (many: keyof typeof cases, few: keyof typeof cases) => fixed(median(times.get(many)!) / median(times.get(few)!), 2);
    return [
      `== faces: ${path.basename(options.faceModel)}, bbt1.jpg (1366×768, 4 faces), ${options.threads} ORT threads, ${options.requests} sequential requests each, the six services' calls in turn`,
      `raw ONNX Runtime inference of the face model: p50 ${fixed(median(rawTimes))} ms`,
      `made-up faces (medians, inside): two made-up people ${fixed(alike.twoPeople, 2)} alike, one made-up person's two faces ${fixed(alike.onePerson, 2)}, a made-up face and one of the photo's ${fixed(alike.withReal, 2)}; the photo's four people ${fixed(alike.real, 2)}`,
      `detection alone (DeepStack's /v1/vision/face, no face described): ${await figures('detectOnly')}`,
      `detection + recognition (nobody registered, every face described all the same): ${await figures('nobody')}`,
      `detection + recognition (${REGISTERED.length} people registered, every face described): ${await figures('few')}`,
      `detection + recognition (${MANY_PEOPLE} people registered, ${SAMPLES_EACH} photos each): ${await figures('many')}`,
      `  ${MANY_PEOPLE} people ÷ nobody: ${ratio('many', 'nobody')} (goal ≤ 1.10); ÷ ${REGISTERED.length} people: ${ratio('many', 'few')}; memory held for them: ${fixed(heldPerThousandPeople / 2 ** 20, 2)} MiB per 1,000 people`,
      `keeping unknown faces (remember on, every face described and kept), none kept at first: ${await figures('keepNone')}`,
      `keeping unknown faces, ${MANY_KEPT} kept at first: ${await figures('keepMany')}`,
      `  ${MANY_KEPT} kept ÷ none: ${ratio('keepMany', 'keepNone')} (goal ≤ 1.10); memory held for them: ${fixed(heldPerTenThousandKept / 2 ** 20, 2)} MiB per 10,000 kept faces`,
    ];
  } finally {
    await server.close();
  }
}
