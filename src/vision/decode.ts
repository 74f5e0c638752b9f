import jpegTurbo from '@julusian/jpeg-turbo';
import sharp, { type Metadata } from 'sharp';
import type { RgbImage } from './image.js';

/** Formats a client may send; anything else sharp can read (SVG, PDF, raw…) is refused. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif']);
const ACCEPTED_HEIF_COMPRESSION = 'av1'; // AVIF; HEVC-coded HEIC is not decodable here

export type DecodeFailure = 'invalid_image' | 'image_too_large';

export class ImageDecodeError extends Error {
  constructor(
    readonly failure: DecodeFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface DecodedImage extends RgbImage {
  /** Container format as detected from the bytes (jpeg, png, …; AVIF reads "heif"). */
  readonly format: string;
}

export interface DecodeLimits {
  /** Most pixels (width × height of one frame) allowed, checked from the header before decoding. */
  readonly maxPixels: number;
}

/** First sentence of a libvips/libjpeg message, without file-system paths or stack detail. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0].replace(/^Input buffer /, '').slice(0, 200);
}

/**
 * Bytes → 8-bit RGB as a person sees the image (EXIF orientation applied, alpha flattened,
 * any colour space converted to sRGB, first frame of an animation).
 *
 * Plain upright 8-bit sRGB JPEGs — what cameras and browsers send almost always — are
 * decoded by libjpeg-turbo directly, several times faster than the general libvips path.
 */
export async function decodeImage(bytes: Buffer, limits: DecodeLimits): Promise<DecodedImage> {
  let metadata: Metadata;
  try {
    // Header only: no pixel limit here, so that an oversized image is reported as such below.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new ImageDecodeError('invalid_image', `not a readable image: ${describe(error)}`);
  }
  const { format, width, height } = metadata;
  if (!ACCEPTED_FORMATS.has(format) || (format === 'heif' && metadata.compression !== ACCEPTED_HEIF_COMPRESSION)) {
    throw new ImageDecodeError('invalid_image', `unsupported image format "${format}"; send JPEG, PNG, WebP, GIF, TIFF or AVIF`);
  }
  const frameHeight = metadata.pageHeight ?? height;
  if (!width || !frameHeight) throw new ImageDecodeError('invalid_image', 'image has no size');
  if (width * frameHeight > limits.maxPixels) {
    throw new ImageDecodeError(
      'image_too_large',
      `image is ${width}×${frameHeight} = ${width * frameHeight} pixels; the limit is ${limits.maxPixels}`,
    );
  }

  const upright = (metadata.orientation ?? 1) === 1;
  if (format === 'jpeg' && upright && metadata.space === 'srgb' && metadata.channels === 3) {
    try {
      const { data } = await jpegTurbo.decompress(bytes, { format: jpegTurbo.FORMAT_RGB });
      return { format, width, height, data };
    } catch {
      // Truncated or unusual JPEGs: libvips below gives the precise verdict.
    }
  }

  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'warning', pages: 1 })
      .autoOrient()
      .flatten({ background: { r: 114, g: 114, b: 114 } })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels`);
    return { format, width: info.width, height: info.height, data };
  } catch (error) {
    throw new ImageDecodeError('invalid_image', `image could not be decoded: ${describe(error)}`);
  }
}
