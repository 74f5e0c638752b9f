import { GENERIC_PARENT } from '../../models/coco-categories.js';
import type { Detection, Detector } from '../../models/types.js';
import type { RgbImage } from '../../vision/image.js';
import { encodeVisualization } from '../../vision/draw.js';
import { encodeCrop, pixelRegion } from '../../vision/encode.js';
import type { DetectedObject } from '../detected-object.js';
import type { DetectionParameters } from './parameters.js';

/**
 * One image's objects, with the visualization when asked for. Each front door names these on its
 * wire: the JSON API and both streams send `visualized_image` as `raw_data`, where Nvision
 * clients read it.
 */
export interface DetectionResponse {
  detected_objects: DetectedObject[];
  visualized_image?: string;
}

/** The analysed image: its size, and its full-resolution pixels when crops or a visualization are asked for. */
export interface AnalysedImage {
  readonly width: number;
  readonly height: number;
  readonly pixels?: RgbImage;
}

function fullPixels(image: AnalysedImage): RgbImage {
  if (!image.pixels) throw new Error('crops and visualizations need the image decoded at full resolution');
  return image.pixels;
}

/** Detector result → the objects in the public form, with crops and the visualization when asked for. */
export async function assembleDetectionResponse(
  image: AnalysedImage,
  detections: readonly Detection[],
  categories: Pick<Detector, 'labels' | 'parents'>,
  parameters: DetectionParameters,
): Promise<DetectionResponse> {
  const objects: DetectedObject[] = detections.map((detection) => {
    const region = pixelRegion(detection.box, image.width, image.height);
    return {
      name: categories.labels[detection.classIndex] ?? `class_${detection.classIndex}`,
      parent: categories.parents[detection.classIndex] ?? GENERIC_PARENT,
      confidence: Math.round(detection.score * 1e5) / 1e5,
      bounding_box: { left: region.left, right: region.left + region.width, top: region.top, bottom: region.top + region.height },
    };
  });
  const response: DetectionResponse = { detected_objects: objects };
  if (parameters.outputCroppedImage) {
    await Promise.all(
      objects.map(async (object, index) => {
        object.cropped_image = await encodeCrop(fullPixels(image), detections[index].box);
      }),
    );
  }
  // Last: the visualization draws on the image's own pixels.
  if (parameters.outputVisualizedImage) {
    const boxes = detections.map((detection, index) => ({ box: detection.box, label: objects[index].name, confidence: objects[index].confidence }));
    response.visualized_image = await encodeVisualization(fullPixels(image), boxes);
  }
  return response;
}
