import type { Box, Point, RgbImage } from '../vision/image.js';
import { fitSimilarity, warpSimilarity } from '../vision/similarity-warp.js';
import { fivePointsOf68 } from './five-points.js';
import type { FaceLandmarkSummary } from './runtimes/tfjs/face-landmark-net.js';
import type { FaceRecognitionSummary } from './runtimes/tfjs/face-recognition-net.js';
import { startThreadedModel, type ThreadedModel } from './runtimes/threaded-model.js';
import { moduleUrl } from './runtimes/worker-thread.js';
import { MODEL_KINDS } from './model-roles.js';
import type { ServedModel } from './types.js';

/**
 * Height in image pixels of the smallest face described: below it the chip is a blur of a dozen
 * pixels, its descriptor lies near every other such blur, and strangers in crowds were named
 * (docs/performance.md).
 */
export const SMALLEST_DESCRIBED_FACE = 24;

/** Side of the square face image ("chip") dlib's recognition network was trained on. */
export const CHIP_SIDE = 150;

/**
 * Where the five landmarks (models/types.ts's FACE_LANDMARKS, in order) lie in dlib's 150×150 chip
 * — its mean face as `get_face_chip_details` places it with padding 0.25 — in pixel-centre
 * coordinates (../shared/models/faces/README.md, "Aligning a face for the recognizer").
 */
export const CHIP_LANDMARKS: readonly Point[] = [
  { x: 47.55, y: 46.6 },
  { x: 100.48, y: 46.6 },
  { x: 74.01, y: 76.56 },
  { x: 50.41, y: 103.02 },
  { x: 97.61, y: 103.02 },
];

/**
 * The face as the network was trained to see it: the image mapped by the similarity transform
 * that best puts the face's five landmarks where dlib's chip has them, in colour. Landmarks are
 * in image pixels (edges at whole numbers); the chip is sampled at pixel centres.
 */
export function alignedChip(image: RgbImage, landmarks: readonly Point[]): RgbImage {
  const centres = landmarks.map((point) => ({ x: point.x - 0.5, y: point.y - 0.5 }));
  return warpSimilarity(image, fitSimilarity(CHIP_LANDMARKS, centres), CHIP_SIDE);
}

/** The box's whole pixels inside the image, copied out; undefined when the box lies outside it. */
function cutOut(image: RgbImage, box: Box): { readonly left: number; readonly top: number; readonly pixels: RgbImage } | undefined {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const width = Math.min(image.width, Math.ceil(box.right)) - left;
  const height = Math.min(image.height, Math.ceil(box.bottom)) - top;
  if (width < 1 || height < 1) return undefined;
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) image.data.copy(data, y * width * 3, ((top + y) * image.width + left) * 3, ((top + y) * image.width + left + width) * 3);
  return { left, top, pixels: { width, height, data } };
}

function unitLength(values: Float32Array): Float32Array {
  let squared = 0;
  for (const value of values) squared += value * value;
  const norm = Math.sqrt(squared);
  return norm > 0 ? values.map((value) => value / norm) : values;
}

/** The TF.js runtime's worker models: one run at a time in its own thread, the next image held meanwhile. */
const ONE_RUN_AT_A_TIME = { inputs: 2, runs: 1 } as const;

/** The fields of a model served from its own worker thread (threaded-model.ts) with face-api's weights. */
function servedFaceApiModel(model: ThreadedModel<{ readonly name: string; readonly runtime: string; readonly inputSize: number }>) {
  return {
    name: model.summary.name,
    family: 'face-api',
    runtime: model.summary.runtime,
    device: 'CPU',
    aliases: [],
    inputSize: { width: model.summary.inputSize, height: model.summary.inputSize },
    capacity: ONE_RUN_AT_A_TIME,
    dispose: () => model.dispose(),
  };
}

/**
 * The face recognizer (role `describer`): dlib's ResNet from `@vladmandic/face-api` on TF.js, in
 * its own worker thread, so that the network run never blocks the event loop: the main thread only
 * aligns the face onto its 150×150 chip and normalises the answer; the worker's memory holds one
 * chip at a time, whatever the size of the photo. Its scheduler runs it, one run at a time.
 */
export interface FaceDescriptorNet extends ServedModel {
  readonly role: 'describer';
  /** Values in a descriptor. */
  readonly size: number;
  /** The unit-length descriptor of the face whose five landmarks (FACE_LANDMARKS, image pixels) are `landmarks`. */
  describe(image: RgbImage, landmarks: readonly Point[]): Promise<Float32Array>;
}

/**
 * face-api's 68-point landmark net (role `landmarker`), on TF.js in its own worker thread: the five
 * landmarks of a face whose detector gives none (UltraFace), fed the detector's box as face-api feeds it.
 */
export interface FaceLandmarkNet extends ServedModel {
  readonly role: 'landmarker';
  /** The five landmarks (FACE_LANDMARKS, image pixels) of the face in `box`; a RangeError when the box lies outside the image. */
  landmarks(image: RgbImage, box: Box): Promise<Point[]>;
}

/** Loads the face recognizer and warms it up (threaded-detector-entry.ts), at start-up. */
export async function loadFaceDescriptorNet(logger: (message: string) => void): Promise<FaceDescriptorNet> {
  const model = await startThreadedModel<FaceRecognitionSummary>({ moduleUrl: moduleUrl('./runtimes/tfjs/face-recognition-net', import.meta.url) }, logger);
  return {
    ...servedFaceApiModel(model),
    role: 'describer',
    kind: MODEL_KINDS.faceDescriptors,
    size: model.summary.size,
    async describe(image, landmarks) {
      const [{ data }] = (await model.run(alignedChip(image, landmarks))).tensors;
      return unitLength(data);
    },
  };
}

/** Loads the 68-point landmark net and warms it up, at start-up. */
export async function loadFaceLandmarkNet(logger: (message: string) => void): Promise<FaceLandmarkNet> {
  const model = await startThreadedModel<FaceLandmarkSummary>({ moduleUrl: moduleUrl('./runtimes/tfjs/face-landmark-net', import.meta.url) }, logger);
  return {
    ...servedFaceApiModel(model),
    role: 'landmarker',
    kind: MODEL_KINDS.faceLandmarks,
    async landmarks(image, box) {
      const face = cutOut(image, box);
      if (!face) throw new RangeError(`face box ${JSON.stringify(box)} lies outside the ${image.width}×${image.height} image`);
      const [{ data }] = (await model.run(face.pixels)).tensors;
      const points: Point[] = [];
      for (let k = 0; k < data.length; k += 2) points.push({ x: data[k] + face.left, y: data[k + 1] + face.top });
      return fivePointsOf68(points);
    },
  };
}
