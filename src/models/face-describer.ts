import type { Box, Point, RgbImage } from '../vision/image.js';
import { fitSimilarity, warpSimilarity } from '../vision/similarity-warp.js';
import { fivePointsOf68 } from './five-points.js';
import type { FaceLandmarkSummary } from './runtimes/tfjs/face-landmark-net.js';
import type { FaceRecognitionSummary } from './runtimes/tfjs/face-recognition-net.js';
import { startThreadedModel, type ThreadedModel } from './runtimes/threaded-model.js';
import { moduleUrl } from './runtimes/worker-thread.js';
import type { Detection } from './types.js';

/** A face as a detector found it: its box and, where the detector gives them, its five landmarks. */
export type FoundFace = Pick<Detection, 'box' | 'landmarks'>;

/**
 * Describes faces for recognition: a descriptor per face, unit length, so that two faces of one
 * person lie close together (faces/face-similarity.ts turns the distance into a similarity).
 */
export interface FaceDescriber {
  /** The recognition model, e.g. `dlib-face-recognition-resnet`. */
  readonly name: string;
  /** Values in a descriptor. */
  readonly size: number;
  /** The descriptor of `face` (image pixels) in `image`. */
  describe(image: RgbImage, face: FoundFace): Promise<Float32Array>;
  dispose(): Promise<void>;
}

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

/**
 * Loads the face recognizer once — dlib's ResNet from `@vladmandic/face-api` on TF.js — in its own
 * worker thread: the main thread only aligns the face onto its 150×150 chip and normalises the
 * answer; the network run never blocks the event loop. Descriptions queue in the worker, one at a
 * time; the worker's memory holds one chip at a time, whatever the size of the photo. A face whose
 * detector gives no landmarks (UltraFace) is marked by face-api's 68-point landmark net first, in a
 * worker of its own started on the first such face, fed the detector's box as face-api feeds it.
 */
export async function loadFaceDescriber(logger: (message: string) => void): Promise<FaceDescriber> {
  const model = await startThreadedModel<FaceRecognitionSummary>({ moduleUrl: moduleUrl('./runtimes/tfjs/face-recognition-net', import.meta.url) }, logger);
  let landmarker: Promise<ThreadedModel<FaceLandmarkSummary>> | undefined;
  const landmarksOf = async (image: RgbImage, box: Box): Promise<readonly Point[]> => {
    const face = cutOut(image, box);
    if (!face) throw new RangeError(`face box ${JSON.stringify(box)} lies outside the ${image.width}×${image.height} image`);
    landmarker ??= startThreadedModel<FaceLandmarkSummary>({ moduleUrl: moduleUrl('./runtimes/tfjs/face-landmark-net', import.meta.url) }, logger);
    const [{ data }] = (await (await landmarker).run(face.pixels)).tensors;
    const points: Point[] = [];
    for (let k = 0; k < data.length; k += 2) points.push({ x: data[k] + face.left, y: data[k + 1] + face.top });
    return fivePointsOf68(points);
  };
  return {
    name: model.summary.name,
    size: model.summary.size,
    async describe(image, face) {
      const landmarks = face.landmarks ?? (await landmarksOf(image, face.box));
      const [{ data }] = (await model.run(alignedChip(image, landmarks))).tensors;
      return unitLength(data);
    },
    async dispose() {
      await Promise.all([model.dispose(), landmarker?.then((started) => started.dispose())]);
    },
  };
}
