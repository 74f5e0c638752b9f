/** A box in the image's pixels (EXIF orientation applied), edges inclusive-exclusive. */
export interface BoundingBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * One thing a task found, as every wire carries it: an object of the object-detection task, a face
 * of a face task, a plate and its text, or — for a task whose findings are not places in the image
 * — a label for the whole image, with probabilities, text or attributes. As in Ultralytics'
 * Results (boxes, probs, keypoints each optional), only `name`, `parent` and `confidence` are
 * always there; which other fields a task's findings carry is what its response schema declares
 * (Task.responseSchema, the items of its `answerField`). The JSON API and the JSON stream send a
 * finding as is; a door whose wire needs a box (Nvision's `ObjectDetection`, DeepStack's
 * prediction) makes it from these fields.
 */
export interface Finding {
  /** What it is: a class, a person, a plate's text, a label. */
  name: string;
  parent: string;
  confidence: number;
  /** Where it is; absent for a finding about the whole image. */
  bounding_box?: BoundingBox;
  /** Base64 JPEG of the box, when asked for. */
  cropped_image?: string;
  /** A face recognized as a registered person (`name` is the name they were registered by): how alike, 0–1. */
  similarity?: number;
  /** How likely each label is (a classifier's), when the task gives more than its `name`. */
  probabilities?: Readonly<Record<string, number>>;
  /** Text read in it, when the task reads text and says more than its `name`. */
  text?: string;
  /** The state it is in (a region's: `open`, `taken`), for a task that tells states. */
  state?: string;
  /** A reference to an embedding kept by the server (never the embedding itself). */
  embedding_ref?: string;
  /** What the service lists that it matched (a known plate, features/plates/plate-match.ts): the name listed with it, the plate as listed, how many characters the read differs by. */
  known?: { readonly name: string; readonly plate: string; readonly distance: number };
  /** Other things the task says of it, by name. */
  attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** A finding that is a place in the image: what a detector's findings are. */
export type PlacedFinding = Finding & { bounding_box: BoundingBox };
