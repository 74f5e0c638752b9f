import type { Box, RgbImage } from './image.js';
import { takePixelBuffer } from './pixel-buffers.js';

/** A rectangle's pixels copied out of an image; `release` once no one reads them. */
export interface ImageRegion extends RgbImage {
  /** Where its top-left pixel lies in the image it was copied from. */
  readonly left: number;
  readonly top: number;
  release(): void;
}

/**
 * The pixels of `box` (whole pixels: its edges rounded, clipped to the image) as an image of
 * their own, row by row, in a kept shared buffer (pixel-buffers.ts) that an inference worker reads
 * without a copy.
 */
export function regionOf(image: RgbImage, box: Box): ImageRegion {
  const left = Math.max(0, Math.round(box.left));
  const top = Math.max(0, Math.round(box.top));
  const width = Math.max(0, Math.min(image.width, Math.round(box.right)) - left);
  const height = Math.max(0, Math.min(image.height, Math.round(box.bottom)) - top);
  if (width === 0 || height === 0) throw new RangeError(`the region ${JSON.stringify(box)} holds no pixel of a ${image.width} × ${image.height} image`);
  const buffer = takePixelBuffer(width * height * 3);
  for (let row = 0; row < height; row++) {
    const start = ((top + row) * image.width + left) * 3;
    image.data.copy(buffer.data, row * width * 3, start, start + width * 3);
  }
  return { left, top, width, height, data: buffer.data, release: buffer.release };
}
