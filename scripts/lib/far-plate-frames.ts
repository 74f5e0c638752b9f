/**
 * The far-camera plate set: each labelled photo of ../shared/eval/plates shrunk (or grown) so its
 * plate is 40–72 px wide, as a street or driveway camera sees it, pasted into a 1920 × 1080 frame
 * over an enlarged, blurred street photo of ../shared/eval/coco-val122 (clutter for the detector),
 * saved as JPEG quality 85; its label moved with it. Every choice (plate width, position,
 * background) comes from the sha256 of the construction's seed and the photo's name, so the same
 * seed builds the same frames byte for byte. Built into the system's temporary folder, never into
 * the repository (the photos are the benchmark's, AGPL-3.0).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Box } from '../../src/vision/image.js';

export const FRAME = { width: 1920, height: 1080 };
export const PLATE_WIDTHS = { min: 40, max: 72 };
const JPEG_QUALITY = 85;
/** Enough to leave the background's shapes and edges, not its text. */
const BACKGROUND_BLUR_SIGMA = 3;

/** One labelled photo of the benchmark (the fields the construction needs). */
export interface PlatePhoto {
  readonly file: string;
  readonly region: string;
  readonly plate: string;
  /** Labelled box, in the photo's pixels. */
  readonly box: Box;
}

/** A deterministic fraction in [0, 1) for `key`. */
function fraction(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

/** Where a span of `length` (holding [from, to)) goes in a frame side of `side`: a deterministic offset keeping [from, to) inside. */
function offsetWithin(side: number, length: number, from: number, to: number, at: number): number {
  const lowest = Math.max(Math.min(0, side - length), -from);
  const highest = Math.min(Math.max(0, side - length), side - to);
  return Math.round(lowest + at * (highest - lowest));
}

/** The frame of one photo: its bytes (JPEG) and its plate's box in the frame. */
export async function farFrame(photo: PlatePhoto, photoFolder: string, backgrounds: readonly string[], seed: string): Promise<{ jpeg: Buffer; box: Box }> {
  const key = `${seed}:${photo.file}`;
  const plateWidth = PLATE_WIDTHS.min + Math.floor(fraction(`${key}:width`) * (PLATE_WIDTHS.max - PLATE_WIDTHS.min + 1));
  const scale = plateWidth / (photo.box.right - photo.box.left);
  const source = sharp(await readFile(path.join(photoFolder, photo.file))).rotate();
  const { width, height } = await source.metadata().then((meta) => ((meta.orientation ?? 1) >= 5 ? { width: meta.height, height: meta.width } : meta));
  const scaledWidth = Math.max(1, Math.round(width * scale));
  const scaledHeight = Math.max(1, Math.round(height * scale));
  const plate = { left: photo.box.left * scale, top: photo.box.top * scale, right: photo.box.right * scale, bottom: photo.box.bottom * scale };
  const left = offsetWithin(FRAME.width, scaledWidth, plate.left, plate.right, fraction(`${key}:x`));
  const top = offsetWithin(FRAME.height, scaledHeight, plate.top, plate.bottom, fraction(`${key}:y`));
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
  return { jpeg, box: { left: plate.left + left, top: plate.top + top, right: plate.right + left, bottom: plate.bottom + top } };
}

/**
 * Every photo's far frame under a folder of the temporary directory named after the seed (reused
 * when already built): each photo's frame at `<region>/<file>.jpg` of it, with its moved label.
 */
export async function farPlateSet<T extends PlatePhoto>(photos: readonly T[], photoFolder: string, backgrounds: readonly string[], seed: string): Promise<{ folder: string; frames: T[] }> {
  const folder = path.join(os.tmpdir(), `detectd-far-plates-${seed}`);
  const labels = path.join(folder, 'labels.json');
  const built = fs.existsSync(labels) ? (JSON.parse(fs.readFileSync(labels, 'utf8')) as Record<string, Box>) : {};
  const frames: T[] = [];
  for (const photo of photos) {
    const file = photo.file.replace(/\.\w+$/, '.jpg');
    if (!built[file]) {
      const { jpeg, box } = await farFrame(photo, photoFolder, backgrounds, seed);
      fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      fs.writeFileSync(path.join(folder, file), jpeg);
      built[file] = box;
    }
    frames.push({ ...photo, file, box: built[file] });
  }
  fs.writeFileSync(labels, JSON.stringify(built));
  return { folder, frames };
}
