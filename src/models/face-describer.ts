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
 * The face as the recognizer is shown it: the detector's box as drawn (growing it by 5 or 10 %
 * named fewer people right in the group photos of ../shared/eval/faces), copied out row by row,
 * in grey (luma, BT.601, in all three channels). Grey because a camera that switches to infrared
 * at night sees faces in grey whatever the registration photos were: describing every face in grey
 * makes a colour registration match a night frame, and the reverse (on ../shared/eval/faces, whose
 * registration crops are grey, the best match is the right person for 18 of the 22 cast faces in its
 * group photos, against 12 when the photos' faces are described in colour).
 */
function faceRegion(image: RgbImage, box: Box): RgbImage {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const right = Math.min(image.width, Math.ceil(box.right));
  const bottom = Math.min(image.height, Math.ceil(box.bottom));
  if (right <= left || bottom <= top) throw new RangeError(`face box ${JSON.stringify(box)} lies outside the ${image.width}×${image.height} image`);
  const width = right - left;
  const height = bottom - top;
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    let from = ((top + y) * image.width + left) * 3;
    let to = y * width * 3;
    for (let x = 0; x < width; x++, from += 3, to += 3) {
      const luma = Math.round(0.299 * image.data[from] + 0.587 * image.data[from + 1] + 0.114 * image.data[from + 2]);
      data[to] = data[to + 1] = data[to + 2] = luma;
    }
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
    { moduleUrl: moduleUrl('./runtimes/tfjs/face-recognition-net', import.meta.url) },
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
