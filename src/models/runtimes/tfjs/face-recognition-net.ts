import type { NamedTensorMap, Tensor2D, Tensor4D } from '@tensorflow/tfjs-core';
import { tf } from './tfjs.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';
import { faceApiInput, readFaceApiWeights } from './face-api-nets.js';
import { tfjsBackend } from './tfjs-backend.js';

/** What the describer's worker says of its model. */
export interface FaceRecognitionSummary {
  readonly name: string;
  readonly runtime: string;
  /** Values in one descriptor. */
  readonly size: number;
  /** Side of the square face image the network takes. */
  readonly inputSize: number;
}

/**
 * dlib's face recognition ResNet (29 conv layers, 128-d descriptors, 99.38 % on LFW) with the
 * weights `@vladmandic/face-api` ships in `model/face_recognition_model*`, written out in TF.js
 * ops as that package runs it (its FaceRecognitionNet, read, not copied): the face image padded
 * to a square (centred, black) and resized to 150×150, minus the mean RGB (122.782, 117.001,
 * 104.298), / 255; a 7×7/2 conv, 3×3/2 max pool, residual blocks of 32, 64, 128 and 256 filters
 * (each conv followed by a per-channel scale), global average, a 256→128 fully connected layer.
 */

const INPUT_SIZE = 150;

type Weights = NamedTensorMap;

function convLayer(x: Tensor4D, weights: Weights, name: string, strides: 1 | 2, relu: boolean): Tensor4D {
  const filters = weights[`${name}/conv/filters`] as Tensor4D;
  let out = tf.conv2d(x, filters, strides, strides === 2 ? 'valid' : 'same');
  out = tf.add(out, weights[`${name}/conv/bias`]);
  out = tf.add(tf.mul(out, weights[`${name}/scale/weights`]), weights[`${name}/scale/biases`]);
  return relu ? tf.relu(out) : out;
}

function residual(x: Tensor4D, weights: Weights, name: string): Tensor4D {
  const out = convLayer(convLayer(x, weights, `${name}/conv1`, 1, true), weights, `${name}/conv2`, 1, false);
  return tf.relu(tf.add(out, x)) as Tensor4D;
}

/** A residual block that halves the resolution: the shortcut is average-pooled and zero-padded to the new depth. */
function residualDown(x: Tensor4D, weights: Weights, name: string): Tensor4D {
  let out = convLayer(convLayer(x, weights, `${name}/conv1`, 2, true), weights, `${name}/conv2`, 1, false);
  let pooled = tf.avgPool(x, 2, 2, 'valid');
  if (pooled.shape[1] !== out.shape[1] || pooled.shape[2] !== out.shape[2]) {
    out = tf.concat([out, tf.zeros([out.shape[0], 1, out.shape[2], out.shape[3]])], 1);
    out = tf.concat([out, tf.zeros([out.shape[0], out.shape[1], 1, out.shape[3]])], 2);
  }
  if (pooled.shape[3] !== out.shape[3]) pooled = tf.concat([pooled, tf.zeros(pooled.shape)], 3);
  return tf.relu(tf.add(pooled, out)) as Tensor4D;
}

/** The descriptor of a face as face-api's input makes it (face-api-nets.ts: 150×150, normalised). */
function descriptorOf(face: Tensor4D, weights: Weights): Tensor2D {
  let out = convLayer(face, weights, 'conv32_down', 2, true);
  out = tf.maxPool(out, 3, 2, 'valid');
  for (const name of ['conv32_1', 'conv32_2', 'conv32_3']) out = residual(out, weights, name);
  out = residualDown(out, weights, 'conv64_down');
  for (const name of ['conv64_1', 'conv64_2', 'conv64_3']) out = residual(out, weights, name);
  out = residualDown(out, weights, 'conv128_down');
  for (const name of ['conv128_1', 'conv128_2']) out = residual(out, weights, name);
  out = residualDown(out, weights, 'conv256_down');
  for (const name of ['conv256_1', 'conv256_2']) out = residual(out, weights, name);
  out = residualDown(out, weights, 'conv256_down_out');
  return tf.matMul(tf.mean(out, [1, 2]) as Tensor2D, weights.fc as Tensor2D);
}

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel<FaceRecognitionSummary>> {
  const log = options.logger ?? (() => {});
  const runtime = await tfjsBackend(log);
  const { source, weights } = await readFaceApiWeights('face_recognition_model');
  const size = (weights.fc?.shape[1] as number | undefined) ?? 0;
  if (size === 0) throw new Error(`${source}: no fully connected layer "fc"`);
  log(`face recognition net loaded from ${source} on ${runtime} (${INPUT_SIZE}×${INPUT_SIZE} → ${size})`);

  async function run(image: RgbImage): Promise<RawOutput> {
    const descriptor = tf.tidy(() => {
      return descriptorOf(faceApiInput(image, INPUT_SIZE), weights);
    });
    try {
      return { tensors: [{ name: 'descriptor', data: (await descriptor.data()) as Float32Array, dims: descriptor.shape }] };
    } finally {
      descriptor.dispose();
    }
  }

  return {
    summary: { name: 'dlib-face-recognition-resnet', runtime, size, inputSize: INPUT_SIZE },
    run,
    dispose: () => tf.dispose(Object.values(weights)),
  };
}
