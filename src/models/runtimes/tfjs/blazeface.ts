import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { EMBEDDED_FACE_MODEL_NAME } from '../../embedded-model.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';
import { graphModelFile, packageFile, tfjsBackend } from './tfjs-backend.js';

/**
 * The embedded face detector: BlazeFace (MediaPipe's back-camera model, 256×256 input) as shipped
 * in `@vladmandic/human`'s `models/` folder, run by TF.js in a worker thread, on the whole image
 * and on tiles of it (regionsOf). It finds faces of their true shape only: each region is a square
 * (black beyond the image) resized to the input, values (v / 127.5) − 1. The graph answers 512
 * rows on a 16×16 grid (stride 16, 2 anchors a cell) and 384 on an 8×8 grid (stride 32,
 * 6 anchors), each a face logit and 16 box/keypoint values of which the first four are the box
 * centre's offset from its anchor and the box's width and height, in input pixels. The worker
 * decodes the regions' faces, merges them (NMS) and answers the end-to-end family's rows (x1, y1, x2, y2, score, 0)
 * with x and y as if the whole image had been stretched over the input, as the threaded detector
 * maps boxes back (runtimes/threaded-detector.ts).
 */

/** Keep candidates at least this sure; the caller's threshold is applied after (end-to-end family). */
const FLOOR_SCORE = 0.05;
/** Overlapping faces are one face above this IoU (the reference pipelines' 0.3). */
const NMS_IOU = 0.3;
const MAX_FACES = 100;
/** A tile's side as a share of the image's longer side. */
const TILE_SHARE = 0.6;
const GRIDS = [
  { stride: 16, anchors: 2 },
  { stride: 32, anchors: 6 },
];

function anchorCentres(inputSize: number): Float32Array {
  const centres: number[] = [];
  for (const { stride, anchors } of GRIDS) {
    const cells = Math.ceil(inputSize / stride);
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        for (let n = 0; n < anchors; n++) centres.push(stride * (x + 0.5), stride * (y + 0.5));
      }
    }
  }
  return Float32Array.from(centres);
}

/** A square part of the image the model is run on. */
interface Region {
  readonly left: number;
  readonly top: number;
  readonly side: number;
}

/**
 * The whole image, and when it is over twice the input, also 2 × 2 overlapping square tiles of
 * TILE_SHARE of its longer side, so that faces too small to be found in the whole image at the
 * input's scale are found in a tile at about twice it, and all their faces merged (NMS). On
 * ../shared/eval/faces/wider-val (`npm run eval -- --faces`) that raises AP@0.5 for faces ≥ 32 px
 * from 0.51 to 0.68 (32–64 px: 0.21 to 0.56) for five runs instead of one: about CenterNet's time.
 */
function regionsOf(width: number, height: number, inputSize: number): Region[] {
  const longer = Math.max(width, height);
  const whole = { left: 0, top: 0, side: longer };
  if (longer <= 2 * inputSize) return [whole];
  const side = Math.ceil(TILE_SHARE * longer);
  const starts = (length: number) => (side >= length ? [0] : [0, length - side]);
  return [whole, ...starts(height).flatMap((top) => starts(width).map((left) => ({ left, top, side })))];
}

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel> {
  const log = options.logger ?? (() => {});
  const runtime = await tfjsBackend(log);
  const modelPath = packageFile('@vladmandic/human', 'models', 'blazeface.json');
  const model: GraphModel = await loadGraphModel(graphModelFile(modelPath));
  const [, size] = model.inputs[0]?.shape ?? [];
  if (!size || size < 0) throw new Error(`${modelPath}: its input has no fixed size`);
  const anchors = anchorCentres(size);
  log(`blazeface loaded from ${modelPath} on ${runtime} (${size}×${size})`);

  /** Faces in one square region of the image (`side` pixels from `left`, `top`; black beyond the image), in image pixels. */
  async function facesIn(pixels: tf.Tensor4D, region: Region, boxes: number[], scores: number[]): Promise<void> {
    const [, imageHeight, imageWidth] = pixels.shape;
    const rows = tf.tidy(() => {
      const width = Math.min(region.side, imageWidth - region.left);
      const height = Math.min(region.side, imageHeight - region.top);
      const crop = tf.slice(pixels, [0, region.top, region.left, 0], [1, height, width, 3]);
      const square = tf.pad(crop, [[0, 0], [0, region.side - height], [0, region.side - width], [0, 0]]);
      const input = tf.sub(tf.div(tf.image.resizeBilinear(square, [size, size], false, true), 127.5), 1);
      // Four outputs: logits and box values of each grid; ordered by size they pair up as [logits, values].
      const outputs = (model.execute(input) as tf.Tensor[]).sort((a, b) => a.size - b.size);
      const [logits384, logits512, values384, values512] = outputs;
      return tf.squeeze(tf.concat([tf.concat([logits512, values512], 2), tf.concat([logits384, values384], 2)], 1), [0]) as tf.Tensor2D;
    });
    const values = (await rows.data()) as Float32Array;
    const [count, width] = rows.shape;
    rows.dispose();
    if (count * 2 !== anchors.length) throw new Error(`blazeface answered ${count} rows, its grids have ${anchors.length / 2} anchors`);
    const scale = region.side / size;
    for (let i = 0; i < count; i++) {
      const row = i * width;
      const score = 1 / (1 + Math.exp(-values[row]));
      if (score < FLOOR_SCORE) continue;
      const cx = region.left + (values[row + 1] + anchors[2 * i]) * scale;
      const cy = region.top + (values[row + 2] + anchors[2 * i + 1]) * scale;
      const halfWidth = (values[row + 3] / 2) * scale;
      const halfHeight = (values[row + 4] / 2) * scale;
      boxes.push(cy - halfHeight, cx - halfWidth, cy + halfHeight, cx + halfWidth);
      scores.push(score);
    }
  }

  async function run(image: RgbImage): Promise<RawOutput> {
    const pixels = tf.tensor4d(Float32Array.from(image.data), [1, image.height, image.width, 3]);
    const boxes: number[] = [];
    const scores: number[] = [];
    try {
      for (const region of regionsOf(image.width, image.height, size)) await facesIn(pixels, region, boxes, scores);
    } finally {
      pixels.dispose();
    }
    // Image pixels → the stretched frame's: x · size / width, y · size / height.
    const toStretchedX = size / image.width;
    const toStretchedY = size / image.height;
    const rowsOut: number[] = [];
    if (scores.length > 0) {
      const boxTensor = tf.tensor2d(boxes, [scores.length, 4]);
      const kept = await tf.image.nonMaxSuppressionAsync(boxTensor, scores, MAX_FACES, NMS_IOU, FLOOR_SCORE);
      const indices = await kept.data();
      boxTensor.dispose();
      kept.dispose();
      for (const index of indices) {
        const [y1, x1, y2, x2] = boxes.slice(4 * index, 4 * index + 4);
        rowsOut.push(x1 * toStretchedX, y1 * toStretchedY, x2 * toStretchedX, y2 * toStretchedY, scores[index], 0);
      }
    }
    return { data: Float32Array.from(rowsOut), dims: [1, rowsOut.length / 6, 6] };
  }

  return {
    summary: { name: EMBEDDED_FACE_MODEL_NAME, kind: 'faces', family: 'blazeface', runtime, device: 'CPU', aliases: [], labels: ['face'], parents: ['person'], inputSize: { width: size, height: size } },
    run,
    dispose: () => model.dispose(),
  };
}
