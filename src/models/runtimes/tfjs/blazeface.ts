import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { EMBEDDED_FACE_MODEL_NAME } from '../../embedded-model.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';
import { graphModelFile, packageFile, tfjsBackend } from './tfjs-backend.js';

/**
 * The embedded face detector: BlazeFace (MediaPipe's back-camera model, 256×256 input) as shipped
 * in `@vladmandic/human`'s `models/` folder, run by TF.js in a worker thread. It finds faces of
 * their true shape only: the image is padded to a square (bottom and right, black) before it is
 * resized to the input, values (v / 127.5) − 1. The graph answers
 * 512 rows on a 16×16 grid (stride 16, 2 anchors a cell) and 384 on an 8×8 grid (stride 32,
 * 6 anchors), each a face logit and 16 box/keypoint values of which the first four are the box
 * centre's offset from its anchor and the box's width and height, in input pixels. The worker
 * decodes and merges them (NMS) and answers the end-to-end family's rows (x1, y1, x2, y2, score, 0)
 * with x and y as if the whole image had been stretched over the input, as the threaded detector
 * maps boxes back (runtimes/threaded-detector.ts).
 */

/** Keep candidates at least this sure; the caller's threshold is applied after (end-to-end family). */
const FLOOR_SCORE = 0.05;
/** Overlapping faces are one face above this IoU (the reference pipelines' 0.3). */
const NMS_IOU = 0.3;
const MAX_FACES = 100;
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

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel> {
  const log = options.logger ?? (() => {});
  const runtime = await tfjsBackend(log);
  const modelPath = packageFile('@vladmandic/human', 'models', 'blazeface.json');
  const model: GraphModel = await loadGraphModel(graphModelFile(modelPath));
  const [, size] = model.inputs[0]?.shape ?? [];
  if (!size || size < 0) throw new Error(`${modelPath}: its input has no fixed size`);
  const anchors = anchorCentres(size);
  log(`blazeface loaded from ${modelPath} on ${runtime} (${size}×${size})`);

  async function run(image: RgbImage): Promise<RawOutput> {
    const side = Math.max(image.width, image.height);
    // Padded-square input pixels → the stretched frame's: x · side / width, y · side / height.
    const toStretchedX = side / image.width;
    const toStretchedY = side / image.height;
    const rows = tf.tidy(() => {
      const pixels = tf.tensor4d(Float32Array.from(image.data), [1, image.height, image.width, 3]);
      const square = tf.pad(pixels, [[0, 0], [0, side - image.height], [0, side - image.width], [0, 0]]);
      const input = tf.sub(tf.div(tf.image.resizeBilinear(square, [size, size], false, true), 127.5), 1);
      // Four outputs: logits and box values of each grid; ordered by size they pair up as [logits, values].
      const outputs = (model.execute(input) as tf.Tensor[]).sort((a, b) => a.size - b.size);
      const [logits384, logits512, values384, values512] = outputs;
      return tf.squeeze(tf.concat([tf.concat([logits512, values512], 2), tf.concat([logits384, values384], 2)], 1), [0]) as tf.Tensor2D;
    });
    const values = (await rows.data()) as Float32Array;
    const count = rows.shape[0];
    const width = rows.shape[1];
    rows.dispose();
    if (count * 2 !== anchors.length) throw new Error(`blazeface answered ${count} rows, its grids have ${anchors.length / 2} anchors`);
    const boxes: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < count; i++) {
      const row = i * width;
      const score = 1 / (1 + Math.exp(-values[row]));
      if (score < FLOOR_SCORE) continue;
      const cx = values[row + 1] + anchors[2 * i];
      const cy = values[row + 2] + anchors[2 * i + 1];
      const halfWidth = values[row + 3] / 2;
      const halfHeight = values[row + 4] / 2;
      boxes.push(cy - halfHeight, cx - halfWidth, cy + halfHeight, cx + halfWidth);
      scores.push(score);
    }
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
