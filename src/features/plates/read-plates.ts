import type { StageTimings } from '../../core/call-context.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../core/pipeline.js';
import type { PlateReader, PlateReading } from '../../models/plates.js';
import type { Detection } from '../../models/types.js';
import type { Box } from '../../vision/image.js';
import { mergeWindowDetections, plateWindows } from './plate-windows.js';

/**
 * The crop read around each plate box, as a share of the box's width and height on each side:
 * the reader was trained on plates with some border, and a tight crop reads fewer plates
 * exactly on the shared set (../shared/models/plates/README.md; docs/plates.md).
 */
export const PLATE_CROP_MARGIN = 0.1;
/** Which read plates are kept: the detector also fires on other text (a sign, a shirt), which reads short or unsure. */
export interface PlateFilter {
  /** Fewest characters. */
  readonly minCharacters: number;
  /** Lowest mean character probability. */
  readonly minReadConfidence: number;
}

/** The filter chosen on the tune half of the shared plates: it removed every false plate on vehicle-free photos and no right read (docs/plates.md). */
export const PLATE_FILTER: PlateFilter = { minCharacters: 3, minReadConfidence: 0.8 };

/** One licence plate found and read. */
export interface FoundPlate {
  /** The characters read: A–Z and 0–9 only. */
  readonly text: string;
  /** The detector's confidence that this box is a plate. */
  readonly confidence: number;
  /** In the image's pixels. */
  readonly box: Box;
  /** The reader's: the mean of its characters' probabilities. */
  readonly readConfidence: number;
  /** The reader's guess of the plate's country or region, where it gives one. */
  readonly region?: PlateReading['region'];
}

export interface PlateAnalysis {
  /** Size of the image as a person sees it: the plates' pixel space. */
  readonly width: number;
  readonly height: number;
  /** Highest detector confidence first. */
  readonly plates: readonly FoundPlate[];
}

/** The box grown by `margin` of its size on each side, clipped to the image. */
function withMargin(box: Box, margin: number, width: number, height: number): Box {
  const dx = (box.right - box.left) * margin;
  const dy = (box.bottom - box.top) * margin;
  return { left: Math.max(0, box.left - dx), top: Math.max(0, box.top - dy), right: Math.min(width, box.right + dx), bottom: Math.min(height, box.bottom + dy) };
}

/** What a plate's text is compared as: upper case, letters and digits only (a reader's pad or separator is no character). */
export const plateCharacters = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** A detection the filter kept, with what the reader read in it. */
export interface ReadPlate {
  readonly detection: Detection;
  readonly reading: PlateReading;
  /** `reading`'s text as plateCharacters gives it. */
  readonly text: string;
}

/** What the plate detector found in one image: its pixels kept, and every box of each plate (plate-windows.ts). */
export interface PlateBoxes extends ImageAnalysis {
  /** Index-aligned with `detections`: each plate's other boxes, from the windows, read too. */
  readonly alternatives: readonly (readonly Detection[])[];
}

/**
 * Image bytes → the plate detector's boxes (the request's scheduler: kind `plates`, at `minScore`),
 * the image decoded once at full size and kept: the whole image, then its full-resolution windows
 * (plate-windows.ts), in one turn; their boxes grouped by plate. `release` the pixels once done.
 */
export async function findPlates(request: Omit<AnalysisRequest, 'fullResolution' | 'windows'>, timings: StageTimings): Promise<PlateBoxes> {
  const analysis = await analyseImage({ ...request, fullResolution: true, windows: plateWindows }, timings);
  const plates = mergeWindowDetections(analysis.detections, analysis.windows ?? [], analysis.width, analysis.height);
  return { ...analysis, detections: plates.map(([first]) => first), alternatives: plates.map(([, ...others]) => others) };
}

/**
 * The plates `analysis` found (its full-resolution pixels kept), read: every box's crop
 * (PLATE_CROP_MARGIN around it) read by `reader` in one batch. Each plate is where the detector
 * is surest of it and says what the reader read most surely in any of its boxes. Plates that
 * `filter` does not keep are dropped: the detector's boxes on other text. The reader's time
 * counts in `timings` as `recognize`.
 */
export async function readFoundPlates(analysis: PlateBoxes, reader: PlateReader, timings: StageTimings, filter: PlateFilter = PLATE_FILTER): Promise<ReadPlate[]> {
  const { width, height, detections } = analysis;
  const plates = detections.map((detection, index) => [detection, ...(analysis.alternatives[index] ?? [])]);
  const crops = plates.flat().map((detection) => withMargin(detection.box, PLATE_CROP_MARGIN, width, height));
  const started = performance.now();
  const { readings } = await reader.read(analysis.pixels!, crops);
  timings.recognize = performance.now() - started;
  let next = 0;
  return plates.flatMap((boxes) => {
    const read = boxes.map(() => readings[next++]);
    const detection = boxes.reduce((best, other) => (other.score > best.score ? other : best));
    const reading = read.reduce((best, other) => (other.confidence > best.confidence ? other : best));
    const text = plateCharacters(reading.text);
    return text.length < filter.minCharacters || reading.confidence < filter.minReadConfidence ? [] : [{ detection, reading, text }];
  });
}

/** Image bytes → the licence plates in it, read: findPlates, then readFoundPlates. */
export async function readPlates(
  request: Omit<AnalysisRequest, 'fullResolution' | 'windows'>,
  reader: PlateReader,
  timings: StageTimings,
  filter: PlateFilter = PLATE_FILTER,
): Promise<PlateAnalysis> {
  const analysis = await findPlates(request, timings);
  try {
    const read = await readFoundPlates(analysis, reader, timings, filter);
    const plates = read.map(({ detection, reading, text }): FoundPlate => ({
      text,
      confidence: detection.score,
      box: detection.box,
      readConfidence: reading.confidence,
      ...(reading.region && { region: reading.region }),
    }));
    return { width: analysis.width, height: analysis.height, plates };
  } finally {
    analysis.pixels!.release();
  }
}
