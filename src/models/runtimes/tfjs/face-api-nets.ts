import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { NamedTensorMap, Tensor4D, io } from '@tensorflow/tfjs-core';
import { tf } from './tfjs.js';
import type { RgbImage } from '../../../vision/image.js';
import { packageFile, readWeightShards } from './tfjs-backend.js';

/**
 * What the networks of `@vladmandic/face-api` share when written out in TF.js ops here: their
 * weights, read from the package's `model/` folder, and their input as face-api's NetInput makes
 * it (`toBatchTensor(size, true)` then its nets' `normalize(…, meanRgb) / 255`).
 */

/** The mean RGB every face-api face network subtracts from its 0–255 input. */
const MEAN_RGB = [122.782, 117.001, 104.298];

/** Reads `model/<name>-weights_manifest.json` of @vladmandic/face-api and the shards it names, decoded. */
export async function readFaceApiWeights(name: string): Promise<{ source: string; weights: NamedTensorMap }> {
  const source = packageFile('@vladmandic/face-api', 'model', `${name}-weights_manifest.json`);
  const manifest = JSON.parse(await readFile(source, 'utf8')) as io.WeightsManifestConfig;
  const { specs, data } = await readWeightShards(path.dirname(source), manifest);
  return { source, weights: tf.io.decodeWeights(tf.io.concatenateArrayBuffers(data), specs) };
}

/**
 * Pads the image to a square with black, as face-api's `padToSquare(…, true)` does: `round(d / 2)`
 * rows or columns after it and the rest before (one fewer before when the difference d is odd).
 */
function padToSquare(image: Tensor4D): Tensor4D {
  const [, height, width] = image.shape;
  const difference = Math.abs(height - width);
  const after = Math.round(difference / 2);
  const padding: [number, number] = [difference - after, after];
  return tf.pad(image, [[0, 0], height < width ? padding : [0, 0], width < height ? padding : [0, 0], [0, 0]]);
}

/** The image as a face-api net takes it: padded to a square, resized to `size`×`size` (bilinear), minus the mean RGB, / 255. */
export function faceApiInput(image: RgbImage, size: number): Tensor4D {
  return tf.tidy(() => {
    const pixels = tf.tensor4d(Float32Array.from(image.data), [1, image.height, image.width, 3]);
    const square = tf.image.resizeBilinear(padToSquare(pixels), [size, size], false, false);
    return tf.div(tf.sub(square, tf.tensor1d(MEAN_RGB)), 255);
  });
}
