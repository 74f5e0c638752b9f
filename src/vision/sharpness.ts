import type { OutputInfo } from 'sharp';
import type { Box, RgbImage } from './image.js';
import { loadSharp } from './sharp.js';

/** The side a region is brought to before it is measured, so that one face scores alike whatever its size in the photo. */
const MEASURED_SIDE = 112;
/** The Laplacian (4-neighbour), offset to keep its negative half: its response is the fine detail a blur takes away. */
const LAPLACIAN = { width: 3, height: 3, kernel: [0, 1, 0, 1, -4, 1, 0, 1, 0], scale: 1, offset: 128 };

/** The variance of a one-channel image's values. */
async function variance(image: { data: Buffer; info: OutputInfo }): Promise<number> {
  // stats() measures its input, not the operations before it: each measured image is made first.
  const sharp = await loadSharp();
  const { channels } = await sharp(image.data, { raw: { width: image.info.width, height: image.info.height, channels: 1 } }).stats();
  return channels[0].stdev ** 2;
}

/**
 * How sharp the region `box` of `image` is: the variance of the Laplacian of its grey levels over
 * the variance of the grey levels themselves, × 1000, the region first brought to MEASURED_SIDE
 * square. Over the region's own contrast, so that a dim or grey face scores as a bright one; a
 * blurred or upscaled region scores low, a flat one 0.
 */
export async function sharpness(image: RgbImage, box: Box): Promise<number> {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const width = Math.max(1, Math.min(image.width, Math.ceil(box.right)) - left);
  const height = Math.max(1, Math.min(image.height, Math.ceil(box.bottom)) - top);
  const sharp = await loadSharp();
  const grey = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({ left, top, width, height })
    .greyscale()
    .resize(MEASURED_SIDE, MEASURED_SIDE, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const laplacian = await sharp(grey.data, { raw: { width: MEASURED_SIDE, height: MEASURED_SIDE, channels: 1 } }).convolve(LAPLACIAN).raw().toBuffer({ resolveWithObject: true });
  const contrast = await variance(grey);
  return contrast < 1 ? 0 : (1000 * (await variance(laplacian))) / contrast;
}
