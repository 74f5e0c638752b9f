import type { NamedTensorMap, Tensor2D, Tensor4D } from '@tensorflow/tfjs-core';
import { tf } from './tfjs.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';
import { faceApiInput, readFaceApiWeights } from './face-api-nets.js';
import { tfjsBackend } from './tfjs-backend.js';

/** What the landmark worker says of its model. */
export interface FaceLandmarkSummary {
  readonly name: string;
  readonly runtime: string;
  /** Points per face: 68, in the iBUG 300-W order (jaw 0–16, brows 17–26, nose 27–35, eyes 36–47, mouth 48–67). */
  readonly points: number;
  /** Side of the square image the network takes. */
  readonly inputSize: number;
}

/**
 * face-api's 68-point face landmark net (`FaceLandmark68Net`, MIT) with the weights
 * `@vladmandic/face-api` ships in `model/face_landmark_68_model*`, written out in TF.js ops as that
 * package runs it (read, not copied): the image padded to a square (centred, black), resized to
 * 112×112, minus the mean RGB, / 255; four dense blocks of 32, 64, 128 and 256 filters, each a
 * stride-2 convolution (a plain 3×3 one in the first block, depthwise-separable after) followed by
 * three depthwise-separable 3×3 convolutions, each fed the ReLU of the sum of the block's outputs
 * so far; a 7×7/2 average pool; a 256→136 fully connected layer giving (x, y) of each point as
 * fractions of the padded square.
 *
 * What to feed it: the face as face-api does after its detectors (`detectAllFaces(…)
 * .withFaceLandmarks()`), the detector's box itself, cut out of the image (clipped to the image,
 * whole pixels), not squared or grown — the net pads it to a square itself. `run` answers the 68
 * points in that cut-out's pixels (dims [68, 2], x then y): add the cut-out's left and top for the
 * photo's. Like face-api, it maps back with half the padding, so for an odd difference between
 * width and height the points on that axis lie half a pixel before the padding actually added.
 */

const INPUT_SIZE = 112;
const POINTS = 68;
const BLOCKS = ['dense0', 'dense1', 'dense2', 'dense3'];

type Weights = NamedTensorMap;

function separableConv(x: Tensor4D, weights: Weights, name: string, strides: 1 | 2): Tensor4D {
  const depthwise = weights[`${name}/depthwise_filter`] as Tensor4D;
  const pointwise = weights[`${name}/pointwise_filter`] as Tensor4D;
  return tf.add(tf.separableConv2d(x, depthwise, pointwise, strides, 'same'), weights[`${name}/bias`]);
}

/** The block's first layer halves the resolution; each later layer adds its output to the running sum. */
function denseBlock(x: Tensor4D, weights: Weights, name: string): Tensor4D {
  const plain = weights[`${name}/conv0/filters`] as Tensor4D | undefined;
  const first = plain ? tf.add(tf.conv2d(x, plain, 2, 'same'), weights[`${name}/conv0/bias`]) : separableConv(x, weights, `${name}/conv0`, 2);
  let sum = tf.relu(first) as Tensor4D;
  for (const layer of ['conv1', 'conv2', 'conv3']) sum = tf.add(sum, separableConv(tf.relu(sum), weights, `${name}/${layer}`, 1));
  return tf.relu(sum);
}

/** The net's 136 outputs: (x, y) of each point, interleaved, as fractions of the padded square. */
function landmarksOf(face: Tensor4D, weights: Weights): Tensor2D {
  let out = face;
  for (const block of BLOCKS) out = denseBlock(out, weights, block);
  const pooled = tf.avgPool(out, 7, 2, 'valid');
  return tf.add(tf.matMul(tf.reshape(pooled, [1, -1]), weights['fc/weights'] as Tensor2D), weights['fc/bias']);
}

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel<FaceLandmarkSummary>> {
  const log = options.logger ?? (() => {});
  const runtime = await tfjsBackend(log);
  const { source, weights } = await readFaceApiWeights('face_landmark_68_model');
  const outputs = weights['fc/weights']?.shape[1];
  if (outputs !== POINTS * 2) throw new Error(`${source}: expected a fully connected layer "fc" of ${POINTS * 2} outputs, found ${outputs ?? 'none'}`);
  log(`face landmark net loaded from ${source} on ${runtime} (${INPUT_SIZE}×${INPUT_SIZE} → ${POINTS} points)`);

  async function run(image: RgbImage): Promise<RawOutput> {
    if (image.width < 1 || image.height < 1) throw new RangeError(`a ${image.width}×${image.height} image has no face to mark`);
    const output = tf.tidy(() => landmarksOf(faceApiInput(image, INPUT_SIZE), weights));
    let fractions: Float32Array;
    try {
      fractions = (await output.data()) as Float32Array;
    } finally {
      output.dispose();
    }
    const side = Math.max(image.width, image.height);
    const shift = [(side - image.width) / 2, (side - image.height) / 2];
    return { tensors: [{ name: 'landmarks', data: fractions.map((value, index) => value * side - shift[index % 2]), dims: [POINTS, 2] }] };
  }

  return {
    summary: { name: 'face-api-landmark-68', runtime, points: POINTS, inputSize: INPUT_SIZE },
    run,
    dispose: () => tf.dispose(Object.values(weights)),
  };
}
