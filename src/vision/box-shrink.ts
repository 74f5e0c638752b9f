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
  const source = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  const sourceRow = image.width * 3;
  // Each block row: the `factor` source rows summed down their columns (one pass along memory), then across.
  const columns = new Uint32Array(sourceRow);
  const area = factor * factor;
  const half = area >> 1;
  for (let y = 0, out = 0; y < height; y++) {
    columns.set(source.subarray(y * factor * sourceRow, (y * factor + 1) * sourceRow));
    for (let dy = 1; dy < factor; dy++) {
      const from = (y * factor + dy) * sourceRow;
      for (let i = 0; i < sourceRow; i++) columns[i] += source[from + i];
    }
    for (let x = 0, at = 0; x < width; x++, at += 3 * factor) {
      let red = 0;
      let green = 0;
      let blue = 0;
      for (let k = at; k < at + 3 * factor; k += 3) {
        red += columns[k];
        green += columns[k + 1];
        blue += columns[k + 2];
      }
      data[out++] = (red + half) / area;
      data[out++] = (green + half) / area;
      data[out++] = (blue + half) / area;
    }
  }
  return { width, height, data };
}
