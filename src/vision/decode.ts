import type { Metadata } from 'sharp';
import type { RgbImage } from './image.js';
import { JPEG_DENOMINATORS, scaledSize, scaleDenominator, SHRINK_ON_LOAD_DENOMINATORS } from './decode-scale.js';
import { jpegOrientation, jpegScanCount } from './jpeg-segments.js';
import { takePixelBuffer } from './pixel-buffers.js';
import { loadSharp } from './sharp.js';
import { turboJpeg } from './turbojpeg.js';

/** Formats a client may send; anything else sharp can read (SVG, PDF, raw…) is refused. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif']);
const ACCEPTED_HEIF_COMPRESSION = 'av1'; // AVIF; HEVC-coded HEIC is not decodable here

export type DecodeFailure = 'invalid_image' | 'image_too_large' | 'image_too_complex';

/**
 * Most scans a progressive JPEG may have (as libjpeg-turbo's `-maxscans`): each scan is a pass over
 * every coefficient, so a few hundred KB of near-empty scans cost seconds of CPU. Encoders write
 * about 10; 100 leaves room for unusual ones.
 */
const MAX_JPEG_SCANS = 100;
/** libvips gives up on a decode that runs longer than this (whole seconds, its unit). */
const DECODE_TIMEOUT_SECONDS = 10;

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
  /**
   * Size of the whole image as a person sees it (EXIF orientation applied). `width` × `height`
   * is smaller when it was decoded scaled down (`DecodeScale`).
   */
  readonly fullWidth: number;
  readonly fullHeight: number;
  /** The pixels are no longer read: their memory may hold the next image's. */
  release(): void;
}

/** For pixels in memory of their own, which the garbage collector frees. */
const nothingToRelease = () => {};

/** How small the pixels may come out. */
export interface DecodeScale {
  /**
   * Side of the square the image will be fitted into (a model's input): a large image is then
   * decoded at the smallest scale (1/4 or 1/8) whose longest side is still at least this.
   * Absent: full size.
   */
  readonly fitInto?: number;
}

export interface DecodeLimits {
  /** Most pixels (width × height of one frame) allowed, checked from the header before decoding. */
  readonly maxPixels: number;
}

/** What every refusal of an image's bytes ends with: what would be accepted. */
const SEND_INSTEAD = 'send a JPEG, PNG, WebP, GIF, TIFF or AVIF image';
/** Formats as people name them (AVIF is what sharp calls heif among the accepted ones). */
const FORMAT_NAMES: Record<string, string> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP', gif: 'GIF', tiff: 'TIFF', heif: 'AVIF', svg: 'SVG', pdf: 'PDF', jp2k: 'JPEG 2000', jxl: 'JPEG XL', raw: 'raw pixel' };
const HEIC_REFUSED = `HEIC images (HEVC-coded HEIF, an iPhone camera's default) cannot be decoded here; ${SEND_INSTEAD}`;
const damagedImage = (kind: string) => new ImageDecodeError('invalid_image', `the ${kind} image is damaged or cut short and cannot be decoded; send a whole JPEG, PNG, WebP, GIF, TIFF or AVIF image`);

/** What the first bytes say a file is (`JPEG`, `HEIC`, `a PDF`), when they say anything: for a refusal in words. */
function sniffedKind(bytes: Buffer): string | undefined {
  const text = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'JPEG';
  if (text(1, 4) === 'PNG') return 'PNG';
  if (text(0, 4) === 'GIF8') return 'GIF';
  if (text(0, 4) === 'RIFF' && text(8, 12) === 'WEBP') return 'WebP';
  if (text(0, 4) === 'II*\0' || text(0, 4) === 'MM\0*') return 'TIFF';
  if (text(4, 8) === 'ftyp') return /^avi[fs]$/.test(text(8, 12)) ? 'AVIF' : /^(heic|heix|hevc|hevx|heim|heis|mif1|msf1)$/.test(text(8, 12)) ? 'HEIC' : undefined;
  return undefined;
}

/** The bytes are not an image this decoder reads: why, in words, never the decoding library's (`Input buffer is empty`, `bad seek to …`). */
export function unreadableImage(bytes: Buffer): ImageDecodeError {
  if (bytes.length === 0) return new ImageDecodeError('invalid_image', `the image is empty (0 bytes); ${SEND_INSTEAD}`);
  const kind = sniffedKind(bytes);
  if (kind === 'HEIC') return new ImageDecodeError('invalid_image', HEIC_REFUSED);
  if (kind) return damagedImage(kind);
  const start = bytes.subarray(0, 16).toString('latin1').trimStart();
  const what = start.startsWith('%PDF') ? 'a PDF document' : start.startsWith('<') ? 'text (HTML, XML or SVG)' : start.startsWith('{') || start.startsWith('[') ? 'JSON text' : 'not an image in a format detectd reads';
  return new ImageDecodeError('invalid_image', `the bytes are ${what}${what.startsWith('not') ? '' : ', not an image'}; ${SEND_INSTEAD}`);
}

/** The first line of a libvips message: only to tell its timeout from other failures. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0];
}

/**
 * Bytes → 8-bit RGB as a person sees the image (EXIF orientation applied, alpha flattened,
 * any colour space converted to sRGB, first frame of an animation).
 *
 * Upright 8-bit YCbCr, RGB or grey JPEGs — what cameras and browsers send almost always — are
 * read from their header (turbojpeg.ts, jpeg-segments.ts: no libvips round trip) and
 * decoded by libjpeg-turbo directly, several times faster than the general libvips path,
 * into a reused buffer (pixel-buffers.ts): call `release` once the pixels are no longer read. With
 * `scale.fitInto`, a large one is decoded at 1/2, 1/4 or 1/8 of its size in the DCT domain — a
 * 12 MP photo for a 640-pixel model into a sixteenth of the memory, faster (docs/performance.md). Other
 * formats go through libvips, shrunk as their rows are decoded when they are at least four times
 * larger than needed, so a large PNG is never held at full size.
 */
export async function decodeImage(bytes: Buffer, limits: DecodeLimits, scale: DecodeScale = {}): Promise<DecodedImage> {
  const isJpeg = bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  const turbo = isJpeg ? turboJpeg() : undefined;
  const header = turbo?.readHeader(bytes);
  if (turbo && header?.decodable && jpegOrientation(bytes) === 1) {
    const { width, height } = header;
    checkSize(width, height, limits);
    checkScans(bytes, header.progressive);
    const denominator = scale.fitInto ? scaleDenominator(width, height, scale.fitInto, JPEG_DENOMINATORS) : 1;
    const scaled = scaledSize(width, height, denominator);
    const pixels = takePixelBuffer(scaled.width * scaled.height * 3);
    try {
      await turbo.decode(bytes, denominator, pixels.data);
      return { format: 'jpeg', ...scaled, data: pixels.data, fullWidth: width, fullHeight: height, release: pixels.release };
    } catch {
      pixels.release();
      // Truncated or unusual JPEGs: libvips gives the precise verdict.
    }
  }
  return decodeWithLibvips(bytes, limits, scale);
}

/** Refuses an image of more pixels than the limit, from its header's size. */
function checkSize(width: number, height: number, limits: DecodeLimits): void {
  if (width * height > limits.maxPixels) {
    throw new ImageDecodeError('image_too_large', `image is ${width}×${height} = ${width * height} pixels; the limit is ${limits.maxPixels}`);
  }
}

function checkScans(jpeg: Buffer, progressive: boolean): void {
  if (progressive && jpegScanCount(jpeg, MAX_JPEG_SCANS) > MAX_JPEG_SCANS) {
    throw new ImageDecodeError('image_too_complex', `progressive JPEG with more than ${MAX_JPEG_SCANS} scans`);
  }
}

/** Every other image, by libvips: any format accepted, any orientation, colour space or alpha. */
async function decodeWithLibvips(bytes: Buffer, limits: DecodeLimits, scale: DecodeScale): Promise<DecodedImage> {
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    // Header only: no pixel limit here, so that an oversized image is reported as such below.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw unreadableImage(bytes);
  }
  const { format, width, height } = metadata;
  if (format === 'heif' && metadata.compression !== ACCEPTED_HEIF_COMPRESSION) throw new ImageDecodeError('invalid_image', HEIC_REFUSED);
  if (!ACCEPTED_FORMATS.has(format)) throw new ImageDecodeError('invalid_image', `${FORMAT_NAMES[format] ?? format.toUpperCase()} images are not accepted; ${SEND_INSTEAD}`);
  const frameHeight = metadata.pageHeight ?? height;
  if (!width || !frameHeight) throw new ImageDecodeError('invalid_image', `the ${FORMAT_NAMES[format]} image has no width or height; ${SEND_INSTEAD}`);
  checkSize(width, frameHeight, limits);
  if (format === 'jpeg') checkScans(bytes, metadata.isProgressive === true);

  const orientation = metadata.orientation ?? 1;
  // EXIF orientations 5–8 turn the image by a quarter: its sides swap.
  const [fullWidth, fullHeight] = orientation >= 5 ? [frameHeight, width] : [width, frameHeight];
  const denominator = scale.fitInto ? scaleDenominator(fullWidth, fullHeight, scale.fitInto, SHRINK_ON_LOAD_DENOMINATORS) : 1;
  try {
    const decoder = sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'warning', pages: 1 }).autoOrient();
    if (denominator > 1) {
      // Exactly libjpeg's scaled size: a JPEG is then shrunk on load and resampled no further.
      const scaled = scaledSize(fullWidth, fullHeight, denominator);
      decoder.resize(scaled.width, scaled.height, { fit: 'fill', fastShrinkOnLoad: true });
    }
    const { data, info } = await decoder
      .flatten({ background: { r: 114, g: 114, b: 114 } })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels`);
    return { format, width: info.width, height: info.height, data, fullWidth, fullHeight, release: nothingToRelease };
  } catch (error) {
    if (/^timeout:/.test(describe(error))) throw new ImageDecodeError('image_too_complex', `image took longer than ${DECODE_TIMEOUT_SECONDS} s to decode`);
    throw damagedImage(FORMAT_NAMES[format]);
  }
}
