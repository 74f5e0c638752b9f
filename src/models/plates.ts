import type { Box, RgbImage } from '../vision/image.js';
import type { ServedModel } from './types.js';

/** One plate as a plate reader read it. */
export interface PlateReading {
  /** The characters read, pad characters dropped. */
  readonly text: string;
  /** Each kept character's probability, in order. */
  readonly characterConfidences: readonly number[];
  /** The mean of `characterConfidences` (0 for an empty plate). */
  readonly confidence: number;
  /** The model's guess of the plate's country or region, where it gives one (its "unknown" is no guess). */
  readonly region?: { readonly name: string; readonly confidence: number };
}

/** Milliseconds of one reader run: crops sampled into its input, the run, its output read. */
export interface PlateReaderTimings {
  readonly preprocess: number;
  readonly inference: number;
  readonly postprocess: number;
}

/**
 * A loaded plate reader (role `reader`, the step after the plate detector in licence-plate
 * recognition): reads the text of plate regions of an image, every region of one image in one
 * run. Its scheduler runs it (src/scheduler/), like every model.
 */
export interface PlateReader extends ServedModel {
  readonly role: 'reader';
  /** Whether its readings carry a country or region guess. */
  readonly regions: boolean;
  /** The regions' readings in order, in one batch; none for no region. `regions` are in `image`'s pixels. */
  read(image: RgbImage, regions: readonly Box[]): Promise<{ readonly readings: PlateReading[]; readonly timings: PlateReaderTimings }>;
}
