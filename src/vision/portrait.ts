import sharp from 'sharp';
import { ImageDecodeError, unreadableImage } from './decode.js';
import type { Box, RgbImage } from './image.js';

/** Longest side a portrait is brought down to before it is framed: more than a face detector or describer uses. */
const MAX_PORTRAIT_SIDE = 1280;
/** The frame on each side, as a fraction of the portrait's longest side. */
const FRAME = 0.5;

/** A portrait photo framed in a neutral border, and where the photo lies in it. */
export interface FramedPortrait {
  /** PNG of the framed photo (EXIF orientation applied). */
  readonly bytes: Buffer;
  /** The photo's own area in the framed image's pixels. */
  readonly photo: Box;
  /** The photo's size as sent over its size in the frame (above 1 when it was brought down to 1280 px). */
  readonly scale: number;
}

/**
 * A photo as a face detector trained on scenes sees a face best when the face fills the photo (a
 * tight crop, a passport photo): framed in a grey border half its size on each side, so that the
 * face is a face in a scene again (UltraFace finds every 150 px crop of ../shared/eval/faces framed,
 * and misses or splits several bare). Brought down to 1280 px first, so the frame adds no pixels
 * past what detection and description need.
 */
export async function framePortrait(bytes: Buffer, maxPixels: number): Promise<FramedPortrait> {
  const upright = await sharp(bytes, { limitInputPixels: maxPixels })
    .rotate()
    .resize({ width: MAX_PORTRAIT_SIDE, height: MAX_PORTRAIT_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch((error: Error) => {
      throw /pixel limit/i.test(error.message)
        ? new ImageDecodeError('image_too_large', `the image has more than ${maxPixels} pixels`)
        : unreadableImage(bytes);
    });
  const { width, height, channels } = upright.info;
  const header = await sharp(bytes).metadata();
  // EXIF orientations 5–8 turn the photo a quarter: its upright width is the stored height.
  const sentWidth = (header.orientation ?? 1) >= 5 ? header.height : header.width;
  const margin = Math.round(FRAME * Math.max(width, height));
  const framed = await sharp(upright.data, { raw: { width, height, channels } })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { bytes: framed, photo: { left: margin, top: margin, right: margin + width, bottom: margin + height }, scale: sentWidth ? sentWidth / width : 1 };
}

/** Longest side of an image framed before face detection whatever it shows: a face crop or a thumbnail, never a camera's frame. */
export const SMALL_IMAGE_SIDE = 300;

/** Whether an image is small enough to be a face crop (both sides at most SMALL_IMAGE_SIDE, as a person sees it); false for what is not an image (its decoder says so later). */
export async function isSmallImage(bytes: Buffer): Promise<boolean> {
  const header = await sharp(bytes).metadata().catch(() => undefined);
  return header?.width !== undefined && header.height !== undefined && Math.max(header.width, header.height) <= SMALL_IMAGE_SIDE;
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
