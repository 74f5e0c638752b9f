/**
 * How alike two faces are, from their descriptors (models/face-describer.ts: unit length).
 *
 * similarity = 1 − ‖a − b‖ / 2, in [0, 1]: 1 for the same descriptor, 0 for opposite ones, linear
 * in the Euclidean distance that dlib's face recognizer was trained on (its own "same person" rule,
 * distance < 0.6, is similarity > 0.7). For unit vectors it is also 1 − √((1 − cos) / 2).
 */
export function faceSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`descriptors of ${a.length} and ${b.length} values cannot be compared`);
  let squared = 0;
  for (let i = 0; i < a.length; i++) squared += (a[i] - b[i]) ** 2;
  return Math.max(0, 1 - Math.sqrt(squared) / 2);
}

/**
 * The similarity a face must reach to be named as a registered person when its service sets none
 * (`services.face_match_threshold`), and how much more alike than any other registered person it
 * must be: a face about as like two people is neither. Chosen on the shared photos so that
 * strangers stay unknown (`npm run eval -- --faces`; docs/faces.md gives the figures and what they
 * trade).
 */
export const DEFAULT_FACE_MATCH_THRESHOLD = 0.8;
export const FACE_MATCH_MARGIN = 0.02;
