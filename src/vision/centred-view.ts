import type { Box, RgbImage } from './image.js';
import { warpSimilarity } from './similarity-warp.js';

/**
 * A `side` × `side` image centred on `box`, scaled so that the box's longer side spans `boxSide`
 * pixels (bilinear, averaged where it shrinks; black beyond the image's edges): what lies in the
 * box, seen at one size and in the middle, whatever its size and place in the image.
 */
export function centredView(image: RgbImage, box: Box, side: number, boxSide: number): RgbImage {
  const scale = Math.max(box.right - box.left, box.bottom - box.top) / boxSide;
  // Pixel-centre coordinates on both sides (similarity-warp.ts): the view's centre onto the box's.
  const centre = (side - 1) / 2;
  const shiftX = (box.left + box.right) / 2 - 0.5 - scale * centre;
  const shiftY = (box.top + box.bottom) / 2 - 0.5 - scale * centre;
  return warpSimilarity(image, { a: scale, b: 0, shiftX, shiftY }, side);
}
