import sharp, { type Sharp } from 'sharp';
import type { Box, RgbImage } from './image.js';

const JPEG_QUALITY = 90;

/** A sharp pipeline over an in-memory RGB image. */
export function rawPipeline(image: RgbImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
}

export function encodeJpeg(pipeline: Sharp): Promise<Buffer> {
  return pipeline.jpeg({ quality: JPEG_QUALITY, mozjpeg: false }).toBuffer();
}

/** Integer pixel rectangle inside the image, at least 1×1, covering the box. */
export function pixelRegion(box: Box, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const left = Math.min(width - 1, Math.max(0, Math.round(box.left)));
  const top = Math.min(height - 1, Math.max(0, Math.round(box.top)));
  const right = Math.max(left + 1, Math.min(width, Math.round(box.right)));
  const bottom = Math.max(top + 1, Math.min(height, Math.round(box.bottom)));
  return { left, top, width: right - left, height: bottom - top };
}

/** The box's pixels as a JPEG. */
export function encodeCrop(image: RgbImage, box: Box): Promise<Buffer> {
  return encodeJpeg(rawPipeline(image).extract(pixelRegion(box, image.width, image.height)));
}
