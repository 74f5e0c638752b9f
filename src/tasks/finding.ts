/** A box in the image's pixels (EXIF orientation applied), edges inclusive-exclusive. */
export interface BoundingBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * One thing a task found, as every wire carries it: an object of the object-detection task, a face
 * of a face task ("face"). The JSON API and the JSON stream send it as is; the Nvision protocol's
 * `ObjectDetection` message and DeepStack's prediction are made from these fields.
 */
export interface Finding {
  name: string;
  parent: string;
  confidence: number;
  bounding_box: BoundingBox;
  /** Base64 JPEG of the box, when asked for. */
  cropped_image?: string;
  /** A face recognized as a registered person (`name` is the name they were registered by): how alike, 0–1. */
  similarity?: number;
}
