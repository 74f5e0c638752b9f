import type { RgbImage } from './image.js';

/**
 * The image brought down by a whole `factor`, each pixel the mean of a `factor` × `factor` block
 * (the right and bottom pixels that make no whole block are left out). A bilinear resize that
 * shrinks by more than two reads only some of the pixels and aliases fine detail such as a plate's
 * characters; shrinking by blocks first keeps every pixel's share.
 */
export function shrinkByBlocks(image: RgbImage, factor: number): RgbImage {
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const data = Buffer.allocUnsafe(width * height * 3);
  const rowValues = width * 3;
  const sums = new Uint32Array(rowValues);
  const area = factor * factor;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let dy = 0; dy < factor; dy++) {
      let from = (y * factor + dy) * image.width * 3;
      for (let x = 0; x < width; x++) {
        const at = x * 3;
        for (let dx = 0; dx < factor; dx++, from += 3) {
          sums[at] += image.data[from];
          sums[at + 1] += image.data[from + 1];
          sums[at + 2] += image.data[from + 2];
        }
      }
    }
    const out = y * rowValues;
    for (let i = 0; i < rowValues; i++) data[out + i] = (sums[i] + (area >> 1)) / area;
  }
  return { width, height, data };
}
