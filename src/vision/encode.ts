import jpegTurbo from '@julusian/jpeg-turbo';
import type { Box, RgbImage } from './image.js';
import { takePixelBuffer } from './pixel-buffers.js';

const JPEG_QUALITY = 90;

/** Integer pixel rectangle inside the image, at least 1×1, covering the box. */
export function pixelRegion(box: Box, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const left = Math.min(width - 1, Math.max(0, Math.round(box.left)));
  const top = Math.min(height - 1, Math.max(0, Math.round(box.top)));
  const right = Math.max(left + 1, Math.min(width, Math.round(box.right)));
  const bottom = Math.max(top + 1, Math.min(height, Math.round(box.bottom)));
  return { left, top, width: right - left, height: bottom - top };
}

type Region = ReturnType<typeof pixelRegion>;

/** Bytes of JPEG turned into base64 per event-loop turn: about half a millisecond each. */
const BASE64_SLICE_BYTES = 768 * 1024; // a multiple of 3: every slice but the last ends on whole base64 groups

/** `bytes` as base64, a slice per event-loop turn: a 5 MB JPEG in one go would hold the loop for milliseconds. */
async function base64InSlices(bytes: Buffer): Promise<string> {
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += BASE64_SLICE_BYTES) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    parts.push(bytes.toString('base64', at, Math.min(bytes.length, at + BASE64_SLICE_BYTES)));
  }
  return parts.join('');
}

/**
 * RGB pixels as a base64 JPEG (quality 90, 4:2:0), by libjpeg-turbo directly, off the event loop:
 * several times faster than libvips' encoder (docs/performance.md). `pixels` starts at the
 * region's first pixel; its rows are `rowPixels` apart. The JPEG is written into a reused buffer of
 * the worst-case size (pixel-buffers.ts), so no request leaves tens of MB of fresh memory behind
 * it for the garbage collector to chase.
 */
async function compress(pixels: Buffer, width: number, height: number, rowPixels: number): Promise<string> {
  const options = { format: jpegTurbo.FORMAT_RGB, width, height, stride: rowPixels, quality: JPEG_QUALITY, subsampling: jpegTurbo.SAMP_420 };
  const output = takePixelBuffer(jpegTurbo.bufferSize(options));
  try {
    return await base64InSlices(await jpegTurbo.compress(pixels, output.data, options));
  } finally {
    output.release();
  }
}

/** An RGB image as a base64 JPEG. */
export function encodeJpeg(image: RgbImage): Promise<string> {
  return compress(image.data, image.width, image.height, image.width);
}

/** The region's rows, copied out of the image. */
function copyRegion(image: RgbImage, { left, top, width, height }: Region): Buffer {
  const data = Buffer.allocUnsafe(width * height * 3);
  const rowBytes = width * 3;
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * image.width + left) * 3;
    image.data.copy(data, row * rowBytes, from, from + rowBytes);
  }
  return data;
}

/** The box's pixels as a base64 JPEG, encoded in place from the image's rows (no copy of a large crop). */
export function encodeCrop(image: RgbImage, box: Box): Promise<string> {
  const region = pixelRegion(box, image.width, image.height);
  const start = image.data.subarray((region.top * image.width + region.left) * 3);
  // The binding wants whole rows of the image for the crop's last row too: a crop along the bottom
  // edge, not starting at the left one, lacks a few bytes, so that one is copied out.
  if (start.length >= image.width * region.height * 3) return compress(start, region.width, region.height, image.width);
  return compress(copyRegion(image, region), region.width, region.height, region.width);
}
