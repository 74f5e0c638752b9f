import type { Detection } from '../models/types.js';
import type { RgbImage } from '../vision/image.js';
import { encodeVisualization } from '../vision/draw.js';
import { encodeCrop, pixelRegion } from '../vision/encode.js';
import type { Finding, PlacedFinding } from './finding.js';
import type { StateReading, TrackVote } from './task.js';
import type { ImageParameters } from './image-parameters.js';

/**
 * What one image task found in one image, with the visualization when asked for. Each front door
 * names these on its wire: the JSON API and both streams send `visualized_image` as `raw_data`,
 * where Nvision clients read it.
 */
export interface FoundResponse<Item extends NamedDetection = NamedDetection> {
  found: PlacedRecord<Item>[];
  visualized_image?: string;
}

/**
 * A placed finding (how the task named it, its confidence and box) in one record with the detection
 * it was made of (what a stream's tracker follows), its vote, and whatever else the task said of it (`Item`'s other fields: a face's descriptor).
 */
export type PlacedRecord<Item extends NamedDetection = NamedDetection> = Omit<Item, 'detection' | 'naming'> & {
  readonly finding: PlacedFinding & Item['naming'];
  readonly tracked: Detection;
};

/** A detection, how the task names it (its class, a person, a plate's text and what the reader said), what it says its track is and the state it reads, together. */
export interface NamedDetection<Named extends Naming = Naming> {
  readonly detection: Detection;
  readonly naming: Named;
  readonly vote?: TrackVote;
  readonly reading?: StateReading;
}

/** The analysed image: its size, and its full-resolution pixels when crops or a visualization are asked for. */
export interface AnalysedImage {
  readonly width: number;
  readonly height: number;
  readonly pixels?: RgbImage;
}

/** How the task names one detection on the wire (an object's class, a face's person). */
export type Naming = Pick<Finding, 'name' | 'parent' | 'similarity'>;

function fullPixels(image: AnalysedImage): RgbImage {
  if (!image.pixels) throw new Error('crops and visualizations need the image decoded at full resolution');
  return image.pixels;
}

/**
 * The tag a visualized image gives a finding. A face's number says what it is: a recognized face's is
 * how sure the name is (the match's similarity), any other face's how sure the detector is that it
 * is a face; side by side, the two must not read as one scale. An object's is its confidence. A face
 * compared with nobody is named `face` already, which says it ("face 0.99", not "face, face 0.99").
 * A region's says its state ("gate: open 0.93").
 */
function tagOf(finding: Finding): { readonly label: string; readonly confidence: number } {
  if (finding.similarity !== undefined) return { label: `${finding.name}, similarity`, confidence: finding.similarity };
  if (finding.parent === FACE && finding.name !== FACE) return { label: `${finding.name}, face`, confidence: finding.confidence };
  if (finding.state !== undefined) return { label: `${finding.name}: ${finding.state}`, confidence: finding.confidence };
  return { label: finding.name, confidence: finding.confidence };
}

/** The parent of every finding of a face task (finding.ts). */
const FACE = 'face';

/** Named detections → the public form, each finding with its detection, with crops and the visualization when asked for. */
export async function assembleFoundResponse<Item extends NamedDetection>(image: AnalysedImage, named: readonly Item[], parameters: ImageParameters): Promise<FoundResponse<Item>> {
  const found = named.map(({ detection, naming, ...said }): PlacedRecord<Item> => {
    const region = pixelRegion(detection.box, image.width, image.height);
    const finding = {
      ...naming,
      confidence: Math.round(detection.score * 1e5) / 1e5,
      bounding_box: { left: region.left, right: region.left + region.width, top: region.top, bottom: region.top + region.height },
    };
    return { ...said, finding, tracked: detection };
  });
  const response: FoundResponse<Item> = { found };
  if (parameters.outputCroppedImage) {
    await Promise.all(
      found.map(async ({ finding, tracked }) => {
        finding.cropped_image = await encodeCrop(fullPixels(image), tracked.box);
      }),
    );
  }
  // Last: the visualization draws on the image's own pixels.
  if (parameters.outputVisualizedImage) {
    const boxes = found.map(({ finding, tracked }) => ({ box: tracked.box, ...tagOf(finding) }));
    response.visualized_image = await encodeVisualization(fullPixels(image), boxes);
  }
  return response;
}
