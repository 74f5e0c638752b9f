/**
 * A far-camera frame: a photo shrunk (or grown) by a given scale and pasted into a 1920 × 1080
 * frame over an enlarged, blurred photo (clutter for the detector), saved as JPEG quality 85. Every
 * choice (position, background) comes from the sha256 of a key, so one key builds one frame byte
 * for byte. The far plates (far-plate-frames.ts) and the far faces of the unknown-faces measurement use it.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Box } from '../../src/vision/image.js';

export const FRAME = { width: 1920, height: 1080 };
const JPEG_QUALITY = 85;
/** Enough to leave the background's shapes and edges, not its text. */
const BACKGROUND_BLUR_SIGMA = 3;

/** A deterministic fraction in [0, 1) for `key`. */
export function fraction(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

/** Where a span of `length` (holding [from, to)) goes in a frame side of `side`: a deterministic offset keeping [from, to) inside. */
function offsetWithin(side: number, length: number, from: number, to: number, at: number): number {
  const lowest = Math.max(Math.min(0, side - length), -from);
  const highest = Math.min(Math.max(0, side - length), side - to);
  return Math.round(lowest + at * (highest - lowest));
}

/**
 * The photo (its bytes) scaled by `scale` into a frame with `box` (in the photo's pixels) kept inside
 * it: the frame's JPEG bytes, the box in the frame, and where any other box of the photo lands in it.
 */
export async function pastedInFrame(photo: Buffer, box: Box, scale: number, backgrounds: readonly string[], key: string): Promise<{ jpeg: Buffer; box: Box; placed: (inPhoto: Box) => Box }> {
  const source = sharp(photo).rotate();
  const { width, height } = await source.metadata().then((meta) => ((meta.orientation ?? 1) >= 5 ? { width: meta.height, height: meta.width } : meta));
  const scaledWidth = Math.max(1, Math.round(width * scale));
  const scaledHeight = Math.max(1, Math.round(height * scale));
  const scaled = { left: box.left * scale, top: box.top * scale, right: box.right * scale, bottom: box.bottom * scale };
  const left = offsetWithin(FRAME.width, scaledWidth, scaled.left, scaled.right, fraction(`${key}:x`));
  const top = offsetWithin(FRAME.height, scaledHeight, scaled.top, scaled.bottom, fraction(`${key}:y`));
  // The part of the scaled photo inside the frame (all of it unless the photo outgrows the frame).
  const visible = { left: Math.max(0, -left), top: Math.max(0, -top) };
  const visibleWidth = Math.min(scaledWidth - visible.left, FRAME.width - Math.max(0, left));
  const visibleHeight = Math.min(scaledHeight - visible.top, FRAME.height - Math.max(0, top));
  const pasted = await source
    .resize(scaledWidth, scaledHeight, { fit: 'fill' })
    .extract({ ...visible, width: visibleWidth, height: visibleHeight })
    .toBuffer();
  const background = backgrounds[Math.floor(fraction(`${key}:background`) * backgrounds.length)];
  const jpeg = await sharp(background)
    .rotate()
    .resize(FRAME.width, FRAME.height, { fit: 'cover' })
    .blur(BACKGROUND_BLUR_SIGMA)
    .composite([{ input: pasted, left: Math.max(0, left), top: Math.max(0, top) }])
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
  const placed = (inPhoto: Box): Box => ({ left: inPhoto.left * scale + left, top: inPhoto.top * scale + top, right: inPhoto.right * scale + left, bottom: inPhoto.bottom * scale + top });
  return { jpeg, box: placed(box), placed };
}
