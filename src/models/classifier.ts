import type { Box, RgbImage } from '../vision/image.js';
import type { ServedModel } from './types.js';

/**
 * A loaded classifier (role `classifier`): how likely each of its labels is, for regions of an
 * image (the whole image is one region), every region of one image in one batch.
 */
export interface Classifier extends ServedModel {
  readonly role: 'classifier';
  /** Class names in output order. */
  readonly labels: readonly string[];
  /** Each region's probabilities, in `labels` order; `regions` are in `image`'s pixels. */
  classify(image: RgbImage, regions: readonly Box[]): Promise<Float32Array[]>;
}
