import type { Box, RgbImage } from '../vision/image.js';
import type { FaceRecognitionSummary } from './runtimes/tfjs/face-recognition-net.js';
import { startThreadedModel } from './runtimes/threaded-model.js';
import { moduleUrl } from './runtimes/worker-thread.js';

/**
 * Describes faces for recognition: a descriptor per face box, unit length, so that two faces of
 * one person lie close together (faces/face-similarity.ts turns the distance into a similarity).
 */
export interface FaceDescriber {
  /** The recognition model, e.g. `dlib-face-recognition-resnet`. */
  readonly name: string;
  /** Values in a descriptor. */
  readonly size: number;
  /** The descriptor of the face in `box` (a face detector's box, image pixels). */
  describe(image: RgbImage, box: Box): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/**
 * How much of the image around a detector's face box the recognizer sees, per side, as a fraction
 * of the box: the net was trained on dlib's face chips, which show a little more than the
 * forehead-to-chin box UltraFace and BlazeFace draw.
 */
const MARGIN = 0.1;

/** The pixels of `box` grown by MARGIN, clipped to the image: a copy of those rows, no resampling. */
function faceRegion(image: RgbImage, box: Box): RgbImage {
  const growX = (box.right - box.left) * MARGIN;
  const growY = (box.bottom - box.top) * MARGIN;
  const left = Math.max(0, Math.floor(box.left - growX));
  const top = Math.max(0, Math.floor(box.top - growY));
  const right = Math.min(image.width, Math.ceil(box.right + growX));
  const bottom = Math.min(image.height, Math.ceil(box.bottom + growY));
  if (right <= left || bottom <= top) throw new RangeError(`face box ${JSON.stringify(box)} lies outside the ${image.width}×${image.height} image`);
  const width = right - left;
  const height = bottom - top;
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * image.width + left) * 3;
    image.data.copy(data, y * width * 3, from, from + width * 3);
  }
  return { width, height, data };
}

function unitLength(values: Float32Array): Float32Array {
  let squared = 0;
  for (const value of values) squared += value * value;
  const norm = Math.sqrt(squared);
  return norm > 0 ? values.map((value) => value / norm) : values;
}

/**
 * Loads the face recognizer once — dlib's ResNet from `@vladmandic/face-api` on TF.js — in its own
 * worker thread: the main thread only copies the face's pixels out (well under a millisecond) and
 * normalises the answer; the ~30–100 ms network run never blocks the event loop. Descriptions
 * queue in the worker, one at a time.
 */
export async function loadFaceDescriber(logger: (message: string) => void): Promise<FaceDescriber> {
  const model = await startThreadedModel<FaceRecognitionSummary>(
    { moduleUrl: moduleUrl('./runtimes/tfjs/face-recognition-net', import.meta.url), loaderName: 'loadFaceRecognitionNet' },
    logger,
  );
  return {
    name: model.summary.name,
    size: model.summary.size,
    async describe(image, box) {
      const { data } = await model.run(faceRegion(image, box));
      return unitLength(data);
    },
    dispose: () => model.dispose(),
  };
}
