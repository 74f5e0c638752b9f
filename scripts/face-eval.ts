/**
 * `npm run eval -- --faces`, detection part: face detection AP by face height on a WIDER FACE
 * folder (default ../shared/eval/faces/wider-val: images/ and the official-format annotations.txt),
 * scored as scripts/wider-face-ap.ts says, for each face model: the embedded one and the files in
 * ../shared/models/faces (or the --model given). Each image goes through the model's scheduler as a
 * request would, with its second look at the faces it is unsure of (second-look.ts), at a 0.005 floor (calibrated confidence; raw scores of about 0.02, as the reference figures were measured) and up to 750 faces.
 * With --calibrate, each model's share of faces among its detections by raw score: the points of
 * its family's calibration (models/families/faces/face-family.ts).
 */
import './lib/typescript-workers.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { rawScoreFor } from '../src/models/families/faces/face-family.js';
import { EMBEDDED_FACE_MODEL_PATH } from '../src/models/embedded-model.js';
import { faceFamilyByName } from '../src/models/families/index.js';
import { loadEmbeddedFaceDetector, tryModelFiles } from '../src/models/load-models.js';
import { MODEL_KINDS } from '../src/models/model-roles.js';
import { isDetector } from '../src/models/types.js';
import type { Detector } from '../src/models/types.js';
import { ModelScheduler } from '../src/scheduler/model-scheduler.js';
import { decodeImage } from '../src/vision/decode.js';
import type { LookAgain } from '../src/core/pipeline.js';
import { secondLook } from '../src/features/faces/task/second-look.js';
import { bandAveragePrecision, faceOverlap, HEIGHT_BANDS, parseWiderAnnotations, type ScoredBox, type WiderImage } from './wider-face-ap.js';

export const DEFAULT_FACE_DATASET = '../shared/eval/faces/wider-val';
const FACE_MODELS_DIR = '../shared/models/faces';
const MIN_SCORE = 0.005;
const MAX_FACES = 750;

export interface FaceModelScore {
  readonly model: string;
  readonly family: string;
  /** Each detection's raw score (before calibration; the first look's) and whether it is a face (IoU ≥ 0.4 with any annotated one, however small). */
  readonly outcomes: readonly { readonly raw: number; readonly face: boolean }[];
  /** AP by HEIGHT_BANDS label, with the number of faces each band counts. */
  readonly bands: Record<string, { ap: number; faces: number }>;
  /** Mean milliseconds of the model's inference stage per image (its first look at the whole image). */
  readonly inferenceMs: number;
  /** Second looks per image, and the mean milliseconds of one's inference stage. */
  readonly secondLooks: { readonly perImage: number; readonly inferenceMs: number };
}

export async function readWiderDataset(folder: string, limit?: number): Promise<WiderImage[]> {
  return parseWiderAnnotations(await readFile(path.join(folder, 'annotations.txt'), 'utf8')).slice(0, limit);
}

/** The detector's faces in every image, through its scheduler, and its AP in every height band. */
export async function scoreFaceDetector(detector: Detector, folder: string, images: readonly WiderImage[]): Promise<FaceModelScore> {
  const scheduler = new ModelScheduler(detector, { maxAdmitted: 4 });
  const detections: ScoredBox[][] = [];
  const calibration = faceFamilyByName(detector.family)?.calibration ?? [];
  const outcomes: { raw: number; face: boolean }[] = [];
  let inferenceMs = 0;
  const looks = { count: 0, inferenceMs: 0 };
  const signal = new AbortController().signal;
  for (const image of images) {
    const decoded = await decodeImage(await readFile(path.join(folder, 'images', image.path)), { maxPixels: 40e6 });
    const turn = await scheduler.acquire('request', signal);
    try {
      const result = await turn.detect(decoded, { minScore: MIN_SCORE, maxDetections: MAX_FACES }, signal);
      inferenceMs += result.timings.inference;
      const look: LookAgain = async (view, minScore) => {
        const again = await turn.detect(view, { minScore, maxDetections: MAX_FACES }, signal);
        looks.count++;
        looks.inferenceMs += again.timings.inference;
        return again.detections;
      };
      const seen = await secondLook(decoded, result.detections, MIN_SCORE, look);
      detections.push(seen.map(({ box, score }) => ({ ...box, score })));
      for (const { box, score } of result.detections) outcomes.push({ raw: rawScoreFor(calibration, score), face: image.faces.some((face) => faceOverlap(face, box) >= 0.4) });
    } finally {
      turn.release();
    }
  }
  const bands = Object.fromEntries(HEIGHT_BANDS.map((band) => [band.label, bandAveragePrecision(images, detections, band)]));
  const secondLooks = { perImage: looks.count / Math.max(1, images.length), inferenceMs: looks.inferenceMs / Math.max(1, looks.count) };
  return { model: detector.name, family: detector.family, outcomes, bands, inferenceMs: inferenceMs / Math.max(1, images.length), secondLooks };
}

/** Loads each face model in turn (one at a time: they share the cores), scores it, and disposes it. */
export interface FaceEvaluation {
  readonly images: number;
  readonly scores: readonly FaceModelScore[];
}

/** The face model files of ../shared/models/faces, by name, but for the embedded model's own file. */
export async function sharedFaceModels(): Promise<string[]> {
  const embedded = path.basename(EMBEDDED_FACE_MODEL_PATH);
  return (await readdir(FACE_MODELS_DIR)).filter((file) => file.endsWith('.onnx') && file !== embedded).sort().map((file) => path.join(FACE_MODELS_DIR, file));
}

export async function evaluateFaceModels(folder: string, modelPaths: readonly string[] | undefined, limit?: number): Promise<FaceEvaluation> {
  const images = await readWiderDataset(folder, limit);
  const settings = { threads: 2, concurrency: 1, nmsIou: 0.3 };
  const loaders: (() => Promise<Detector>)[] = [
    () => loadEmbeddedFaceDetector(settings, () => {}),
    ...(modelPaths ?? (await sharedFaceModels())).map((modelPath) => async () => {
      const [load] = await tryModelFiles({ modelPaths: [modelPath], modelsDir: undefined }, settings, true);
      if ('refused' in load) throw load.refused;
      if (!isDetector(load.model) || load.model.kind !== MODEL_KINDS.faces) throw new Error(`${modelPath} is not a face detector (its outputs are no face family's)`);
      return load.model;
    }),
  ];
  const scores: FaceModelScore[] = [];
  for (const load of loaders) {
    const detector = await load();
    try {
      scores.push(await scoreFaceDetector(detector, folder, images));
    } finally {
      await detector.dispose();
    }
  }
  return { images: images.length, scores };
}

export function printFaceTable({ images, scores }: FaceEvaluation): void {
  const faces = HEIGHT_BANDS.map((band) => `${band.label}: ${scores[0]?.bands[band.label].faces ?? 0}`).join(', ');
  console.log(`Face detection AP@0.5 on ${images} images (faces counted: ${faces})`);
  const header = ['model', ...HEIGHT_BANDS.map((band) => band.label), 'inference ms', 'second looks', 'ms each'];
  const rows = scores.map((score) => [
    score.model,
    ...HEIGHT_BANDS.map((band) => score.bands[band.label].ap.toFixed(3)),
    score.inferenceMs.toFixed(1),
    score.secondLooks.perImage.toFixed(1),
    score.secondLooks.inferenceMs.toFixed(1),
  ]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column].length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
}

/** Each model's detections by raw score, in tenths: how many are faces — the measured points of its calibration. */
export function printCalibration({ scores }: FaceEvaluation): void {
  for (const score of scores) {
    console.log(`\n${score.model} (${score.family}): share of faces among its detections, by raw score`);
    for (let bin = 0; bin < 10; bin++) {
      const inBin = score.outcomes.filter((outcome) => outcome.raw >= bin / 10 && (outcome.raw < (bin + 1) / 10 || bin === 9));
      const faces = inBin.filter((outcome) => outcome.face).length;
      console.log(`  ${(bin / 10).toFixed(1)}–${((bin + 1) / 10).toFixed(1)}: ${faces}/${inBin.length} faces${inBin.length > 0 ? ` (${(faces / inBin.length).toFixed(2)})` : ''}`);
    }
  }
}
