import fs from 'node:fs';
import path from 'node:path';
import { SHARED_DIR } from './paths.js';

/** PKLot's PUCPR camera in ../shared/eval/states: 1280 × 720 frames of 100 parking spaces, each labelled empty or occupied. */
export const PKLOT = path.join(SHARED_DIR, 'eval', 'states', 'pklot-pucpr');

/** One space of one frame as index.json labels it: its state, its box ([x, y, w, h]) and its polygon, in frame pixels. */
export interface PklotLabel {
  readonly file: string;
  readonly state: string;
  readonly region_id: string;
  readonly region: readonly [number, number, number, number];
  readonly polygon: readonly (readonly [number, number])[];
}

const index = JSON.parse(fs.readFileSync(path.join(PKLOT, 'index.json'), 'utf8')) as PklotLabel[];

/** The frame file named `name` (`2012-09-14_11_06_16`). */
export const pklotFrame = (name: string) => path.join(PKLOT, 'images', `${name}.jpg`);

/** How the frame `name` labels the space (`space_10`). */
export function pklotLabel(name: string, space: string): PklotLabel {
  const label = index.find((entry) => entry.file === `images/${name}.jpg` && entry.region_id === space);
  if (!label) throw new Error(`PKLot labels no ${space} in ${name}`);
  return label;
}
