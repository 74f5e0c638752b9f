/**
 * The far-camera plate set: each labelled photo of ../shared/eval/plates shrunk (or grown) so its
 * plate is 40–72 px wide, as a street or driveway camera sees it, pasted into a 1920 × 1080 frame
 * over an enlarged, blurred street photo of ../shared/eval/coco-val122 (clutter for the detector),
 * saved as JPEG quality 85; its label moved with it. Every choice (plate width, position,
 * background) comes from the sha256 of the construction's seed and the photo's name, so the same
 * seed builds the same frames byte for byte. Built into the system's temporary folder, never into
 * the repository (the photos are the benchmark's, AGPL-3.0).
 */
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Box } from '../../src/vision/image.js';
import { fraction, pastedInFrame } from './far-frames.js';

export { FRAME } from './far-frames.js';
export const PLATE_WIDTHS = { min: 40, max: 72 };

/** One labelled photo of the benchmark (the fields the construction needs). */
export interface PlatePhoto {
  readonly file: string;
  readonly region: string;
  readonly plate: string;
  /** Labelled box, in the photo's pixels. */
  readonly box: Box;
}

/** The frame of one photo: its bytes (JPEG) and its plate's box in the frame. */
export async function farFrame(photo: PlatePhoto, photoFolder: string, backgrounds: readonly string[], seed: string): Promise<{ jpeg: Buffer; box: Box }> {
  const key = `${seed}:${photo.file}`;
  const plateWidth = PLATE_WIDTHS.min + Math.floor(fraction(`${key}:width`) * (PLATE_WIDTHS.max - PLATE_WIDTHS.min + 1));
  return pastedInFrame(await readFile(path.join(photoFolder, photo.file)), photo.box, plateWidth / (photo.box.right - photo.box.left), backgrounds, key);
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
