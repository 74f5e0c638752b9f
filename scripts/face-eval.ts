/**
 * `npm run eval -- --faces`: face detection AP by face height on a WIDER FACE folder (default
 * ../shared/eval/faces/wider-val: images/ and the official-format annotations.txt), scored as
 * scripts/wider-face-ap.ts says, for each face model: the UltraFace files in ../shared/models/faces
 * (or the --model given) and the embedded BlazeFace. Each image goes through the model's scheduler
 * as a request would, at a 0.05 floor and up to 750 faces (as the reference figures were measured).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadEmbeddedFaceDetector, tryModelFiles } from '../src/models/load-models.js';
import type { Detector } from '../src/models/types.js';
import { ModelScheduler } from '../src/scheduler/model-scheduler.js';
import { decodeImage } from '../src/vision/decode.js';
import { bandAveragePrecision, HEIGHT_BANDS, parseWiderAnnotations, type ScoredBox, type WiderImage } from './wider-face-ap.js';

export const DEFAULT_FACE_DATASET = '../shared/eval/faces/wider-val';
const DEFAULT_FACE_MODELS = ['../shared/models/faces/ultraface-rfb-320.onnx', '../shared/models/faces/ultraface-rfb-640.onnx'];
const MIN_SCORE = 0.05;
const MAX_FACES = 750;

export interface FaceModelScore {
  readonly model: string;
  /** AP by HEIGHT_BANDS label, with the number of faces each band counts. */
  readonly bands: Record<string, { ap: number; faces: number }>;
  /** Mean milliseconds of the model's inference stage per image. */
  readonly inferenceMs: number;
}

export async function readWiderDataset(folder: string, limit?: number): Promise<WiderImage[]> {
  return parseWiderAnnotations(await readFile(path.join(folder, 'annotations.txt'), 'utf8')).slice(0, limit);
}

/** The detector's faces in every image, through its scheduler, and its AP in every height band. */
export async function scoreFaceDetector(detector: Detector, folder: string, images: readonly WiderImage[]): Promise<FaceModelScore> {
  const scheduler = new ModelScheduler(detector, { maxAdmitted: 4 });
  const detections: ScoredBox[][] = [];
  let inferenceMs = 0;
  const signal = new AbortController().signal;
  for (const image of images) {
    const decoded = await decodeImage(await readFile(path.join(folder, 'images', image.path)), { maxPixels: 40e6 });
    const turn = await scheduler.acquire('request', signal);
    try {
      const result = await turn.detect(decoded, { minScore: MIN_SCORE, maxDetections: MAX_FACES }, signal);
      inferenceMs += result.timings.inference;
      detections.push(result.detections.map(({ box, score }) => ({ ...box, score })));
    } finally {
      turn.release();
    }
  }
  const bands = Object.fromEntries(HEIGHT_BANDS.map((band) => [band.label, bandAveragePrecision(images, detections, band)]));
  return { model: detector.name, bands, inferenceMs: inferenceMs / Math.max(1, images.length) };
}

/** Loads each face model in turn (one at a time: they share the cores), scores it, and disposes it. */
export interface FaceEvaluation {
  readonly images: number;
  readonly scores: readonly FaceModelScore[];
}

export async function evaluateFaceModels(folder: string, modelPaths: readonly string[] | undefined, limit?: number): Promise<FaceEvaluation> {
  const images = await readWiderDataset(folder, limit);
  const settings = { threads: 2, concurrency: 1, nmsIou: 0.3 };
  const loaders: (() => Promise<Detector>)[] = [
    ...(modelPaths ?? DEFAULT_FACE_MODELS).map((modelPath) => async () => {
      const [load] = await tryModelFiles({ modelPaths: [modelPath], modelsDir: undefined }, settings, true);
      if ('refused' in load) throw load.refused;
      if (load.detector.kind !== 'faces') throw new Error(`${modelPath} is not a face detector (its outputs are not UltraFace's)`);
      return load.detector;
    }),
    () => loadEmbeddedFaceDetector(() => {}),
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
  const header = ['model', ...HEIGHT_BANDS.map((band) => band.label), 'inference ms'];
  const rows = scores.map((score) => [score.model, ...HEIGHT_BANDS.map((band) => score.bands[band.label].ap.toFixed(3)), score.inferenceMs.toFixed(1)]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column].length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
}
