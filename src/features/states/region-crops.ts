import { cropsInto } from '../../vision/crops.js';
import type { Box, Point, RgbImage } from '../../vision/image.js';

/** A named place in a camera's frame: its box, and the polygon within it when it was drawn as one (frame pixels). */
export interface RegionShape {
  readonly box: Box;
  readonly polygon?: readonly Point[];
}

/** How the embedder wants its input: square side, per-channel mean and standard deviation of values in [0, 1]. */
export interface EmbedderInput {
  readonly size: number;
  readonly mean: readonly [number, number, number];
  readonly std: readonly [number, number, number];
}

/**
 * Per row of a `size` × `size` crop of `box`, the columns inside `polygon` (their pixel centres,
 * even-odd rule) as [from, to) pairs: one scan line per row instead of a test per pixel.
 */
function polygonSpans(polygon: readonly Point[], box: Box, size: number): number[][] {
  const scaleX = (box.right - box.left) / size;
  const scaleY = (box.bottom - box.top) / size;
  return Array.from({ length: size }, (_, row) => {
    const y = box.top + (row + 0.5) * scaleY;
    const crossings: number[] = [];
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const [a, b] = [polygon[i], polygon[j]];
      if (a.y > y !== b.y > y) crossings.push(((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x);
    }
    crossings.sort((a, b) => a - b);
    // Column c's centre box.left + (c + 0.5) · scaleX lies at or past x from c = ⌈(x − box.left) / scaleX − 0.5⌉.
    const column = (x: number) => Math.min(size, Math.max(0, Math.ceil((x - box.left) / scaleX - 0.5)));
    const spans: number[] = [];
    for (let k = 0; k + 1 < crossings.length; k += 2) spans.push(column(crossings[k]), column(crossings[k + 1]));
    return spans;
  });
}

/**
 * Every region of `image` stretched over the embedder's square input, normalised per channel,
 * as one planar (NCHW) float batch. Outside a region's polygon the input is the mean colour
 * (0 after normalisation): a neighbour's car inside the box but beside the space says nothing
 * about the space (docs/states.md: masking made 0.6 % wrong of 1.5 %).
 */
export function regionBatch(image: RgbImage, regions: readonly RegionShape[], input: EmbedderInput): Float32Array {
  const { size, mean, std } = input;
  const plane = size * size;
  const pixels = new Uint8Array(regions.length * plane * 3);
  cropsInto(image, { crops: regions.map((region) => region.box), width: size, height: size }, pixels);
  // Each channel's byte → normalised value, looked up.
  const levels = [0, 1, 2].map((c) => Float32Array.from({ length: 256 }, (_, byte) => (byte / 255 - mean[c]) / std[c]));
  const batch = new Float32Array(regions.length * plane * 3);
  for (const [n, region] of regions.entries()) {
    const spans = region.polygon === undefined ? undefined : polygonSpans(region.polygon, region.box, size);
    for (let c = 0; c < 3; c++) {
      const level = levels[c];
      const out = (n * 3 + c) * plane;
      const from = n * plane * 3 + c;
      for (let y = 0; y < size; y++) {
        const row = y * size;
        const inside = spans?.[y] ?? [0, size];
        // Outside the spans the batch keeps its 0: the mean colour.
        for (let k = 0; k < inside.length; k += 2) {
          for (let x = inside[k]; x < inside[k + 1]; x++) batch[out + row + x] = level[pixels[from + (row + x) * 3]];
        }
      }
    }
  }
  return batch;
}
