import type { Box, RgbImage } from './image.js';
import { loadSharp } from './sharp.js';

/** The frame on each side, as a fraction of the photo's longer side. */
const FRAME = 0.5;

/** Longest side of an image framed before face detection whatever it shows: a face crop or a thumbnail, never a camera's frame. */
export const SMALL_IMAGE_SIDE = 300;

/** A small photo framed in a neutral border, and where the photo lies in it. */
export interface FramedPortrait {
  /** PNG of the framed photo (EXIF orientation applied). */
  readonly bytes: Buffer;
  /** The photo's own area in the framed image's pixels. */
  readonly photo: Box;
}

/**
 * A face detector trained on scenes sees a face that fills its photo (a tight crop, a passport
 * photo) best as a face in a scene again: a small photo framed in a grey border half its size on
 * each side (UltraFace finds every 150 px crop of ../shared/eval/faces framed, and misses or splits
 * several bare). Undefined for an image that is not small (SMALL_IMAGE_SIDE), or not a readable
 * image at all (the pipeline's decoder says what is wrong with it).
 */
export async function frameSmallImage(bytes: Buffer, maxPixels: number): Promise<FramedPortrait | undefined> {
  const sharp = await loadSharp();
  // sharp throws from its constructor for some inputs (an empty buffer): every read is inside the promise.
  const header = await Promise.resolve()
    .then(() => sharp(bytes, { limitInputPixels: maxPixels }).metadata())
    .catch(() => undefined);
  if (header?.width === undefined || header.height === undefined || Math.max(header.width, header.height) > SMALL_IMAGE_SIDE) return undefined;
  const upright = await Promise.resolve()
    .then(() => sharp(bytes, { limitInputPixels: maxPixels }).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true }))
    .catch(() => undefined);
  if (!upright) return undefined;
  const { width, height, channels } = upright.info;
  const margin = Math.round(FRAME * Math.max(width, height));
  const framed = await sharp(upright.data, { raw: { width, height, channels } })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { bytes: framed, photo: { left: margin, top: margin, right: margin + width, bottom: margin + height } };
}

/** The photo's own pixels out of its framed image. */
export function photoPixels(framed: RgbImage, photo: Box): RgbImage {
  const width = photo.right - photo.left;
  const height = photo.bottom - photo.top;
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((photo.top + y) * framed.width + photo.left) * 3;
    framed.data.copy(data, y * width * 3, from, from + width * 3);
  }
  return { width, height, data };
}
