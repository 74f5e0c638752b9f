import fs from 'node:fs';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { photoPath } from './paths.js';

/** Variants of a real photo in every accepted encoding and colour layout, made on the fly. */
export const dogJpeg = () => fs.readFileSync(photoPath('dog.jpg'));

export const DOG_SIZE = { width: 768, height: 576 };

/** Boxes of dog.jpg's three objects, from the reference pipeline (x1, y1, x2, y2). */
export const DOG_PHOTO_OBJECTS = {
  dog: [133, 220, 309, 545],
  bicycle: [128, 128, 566, 430],
  truck: [461, 71, 685, 172],
};

/** Intersection over union of a box (edges) and a reference box (x1, y1, x2, y2). */
export function iou(box: { left: number; top: number; right: number; bottom: number }, [x1, y1, x2, y2]: number[]): number {
  const width = Math.min(box.right, x2) - Math.max(box.left, x1);
  const height = Math.min(box.bottom, y2) - Math.max(box.top, y1);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / ((box.right - box.left) * (box.bottom - box.top) + (x2 - x1) * (y2 - y1) - intersection);
}

export function dogAs(format: 'png' | 'webp' | 'tiff' | 'avif'): Promise<Buffer> {
  const image = sharp(dogJpeg());
  return (format === 'avif' ? image.avif({ effort: 0 }) : image[format]()).toBuffer();
}

export const dogGrayscaleJpeg = () => sharp(dogJpeg()).toColourspace('b-w').jpeg().toBuffer();
export const dogCmykJpeg = () => sharp(dogJpeg()).toColourspace('cmyk').jpeg().toBuffer();
export const dog16BitPng = () => sharp(dogJpeg()).toColourspace('rgb16').png().toBuffer();
export const dogWithAlphaPng = () => sharp(dogJpeg()).ensureAlpha(0.8).png().toBuffer();

/** Two frames: the dog first, then a black frame. Only the first frame is analysed. */
export async function dogAnimatedGif(): Promise<Buffer> {
  const black = await sharp({ create: { ...DOG_SIZE, channels: 3, background: '#000000' } }).png().toBuffer();
  return sharp([dogJpeg(), black], { join: { animated: true } }).gif({ delay: [100, 100], loop: 0 }).toBuffer();
}

/**
 * The dog stored sideways with EXIF orientation 6 ("rotate 90° clockwise to view"): a viewer,
 * and the service, must see the upright 768×576 photo.
 */
export async function dogSidewaysWithExif(): Promise<Buffer> {
  const sideways = await sharp(dogJpeg()).rotate(-90).toBuffer();
  return sharp(sideways).withMetadata({ orientation: 6 }).jpeg().toBuffer();
}

export const onePixelPng = () => sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } }).png().toBuffer();

export function truncatedJpeg(): Buffer {
  const whole = dogJpeg();
  return whole.subarray(0, Math.floor(whole.length / 2));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid 20000×20000 greyscale PNG whose pixel data compresses to a few hundred kilobytes: a
 * decompression bomb (400 MP) that must be refused from its header, before any decoding.
 */
export async function hugePng(side = 20000): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const row = Buffer.alloc(side + 1); // filter byte 0, then black pixels
  const deflate = zlib.createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const finished = new Promise((resolve) => deflate.on('end', resolve));
  for (let y = 0; y < side; y++) deflate.write(row);
  deflate.end();
  await finished;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.concat(compressed)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The dog photo at 400×300: under the small-limits server's 500×500 pixel cap and 100 KiB body cap. */
export const smallDogJpeg = () => sharp(dogJpeg()).resize(400, 300).jpeg({ quality: 80 }).toBuffer();
