import sharp from 'sharp';
import { ImageDecodeError } from './decode.js';
import type { Box } from './image.js';

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
        : new ImageDecodeError('invalid_image', 'not a decodable image');
    });
  const { width, height, channels } = upright.info;
  const margin = Math.round(FRAME * Math.max(width, height));
  const framed = await sharp(upright.data, { raw: { width, height, channels } })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { bytes: framed, photo: { left: margin, top: margin, right: margin + width, bottom: margin + height } };
}
