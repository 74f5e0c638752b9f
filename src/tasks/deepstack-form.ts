import { DetectdError } from '../core/errors.js';
import type { DetectedObject } from './detected-object.js';
import type { DeepStackPrediction, DeepStackRequest } from './task.js';

/** The file of `field` (DeepStack's `image` unless a route reads others); 400 as DeepStack words it when the form has none. */
export function deepStackImage(request: DeepStackRequest, field = 'image'): Buffer {
  const image = request.images.find((file) => file.field === field);
  if (!image) throw new DetectdError('invalid_multipart', field === 'image' ? 'No valid image file found' : `No valid image file found in the "${field}" field`);
  return image.bytes;
}

/** The first non-empty value of a text field, trimmed; undefined when none was sent. */
export function deepStackField(request: DeepStackRequest, name: string): string | undefined {
  return request.fields.find(([field, value]) => field === name && value.trim() !== '')?.[1].trim();
}

/** A found thing's box in DeepStack's fields (pixels, edges). */
export function deepStackBox(found: DetectedObject): Pick<DeepStackPrediction, 'x_min' | 'y_min' | 'x_max' | 'y_max'> {
  const box = found.bounding_box;
  return { x_min: box.left, y_min: box.top, x_max: box.right, y_max: box.bottom };
}
