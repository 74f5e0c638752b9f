import type { Box, Point, RgbImage } from '../vision/image.js';
import type { ServedModel } from './types.js';

/** Milliseconds of one embedder run: regions sampled into its input, the run, its output read. */
export interface EmbedderTimings {
  readonly preprocess: number;
  readonly inference: number;
  readonly postprocess: number;
}

/**
 * A loaded image embedder (role `embedder`): turns regions of an image into vectors that lie close
 * when the regions look alike, every region of one image in one batch. Its scheduler runs it
 * (src/scheduler/), like every model.
 */
export interface Embedder extends ServedModel {
  readonly role: 'embedder';
  /** Values in a vector. */
  readonly size: number;
  /**
   * One unit-length (L2) vector per region, in order; none for no region. `regions` are in
   * `image`'s pixels; `polygons` (index-aligned, each optional) limit a region to a polygon within
   * its box: what lies outside it is the mean colour (vision/crops.ts).
   */
  embed(image: RgbImage, regions: readonly Box[], polygons?: readonly (readonly Point[] | undefined)[]): Promise<{ readonly vectors: Float32Array[]; readonly timings: EmbedderTimings }>;
}
