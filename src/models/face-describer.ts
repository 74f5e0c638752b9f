import type { Point, RgbImage } from '../vision/image.js';
import { fitSimilarity, warpSimilarity } from '../vision/similarity-warp.js';
import type { FaceRecognitionSummary } from './runtimes/tfjs/face-recognition-net.js';
import { startThreadedModel } from './runtimes/threaded-model.js';
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

function unitLength(values: Float32Array): Float32Array {
  let squared = 0;
  for (const value of values) squared += value * value;
  const norm = Math.sqrt(squared);
  return norm > 0 ? values.map((value) => value / norm) : values;
}

/**
 * Loads the face recognizer once — dlib's ResNet from `@vladmandic/face-api` on TF.js — in its own
 * worker thread: the main thread only aligns the face onto its 150×150 chip (well under a
 * millisecond to a few for a large face) and normalises the answer; the network run never blocks
 * the event loop. Descriptions queue in the worker, one at a time; the worker's memory holds one
 * chip at a time, whatever the size of the photo.
 */
export async function loadFaceDescriber(logger: (message: string) => void): Promise<FaceDescriber> {
  const model = await startThreadedModel<FaceRecognitionSummary>(
    { moduleUrl: moduleUrl('./runtimes/tfjs/face-recognition-net', import.meta.url) },
    logger,
  );
  return {
    name: model.summary.name,
    size: model.summary.size,
    async describe(image, face) {
      if (!face.landmarks) throw new Error('this face has no landmarks to align it by');
      const output = await model.run(alignedChip(image, face.landmarks));
      return unitLength(output.tensors[0].data);
    },
    dispose: () => model.dispose(),
  };
}
