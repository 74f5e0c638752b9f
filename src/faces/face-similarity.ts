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
 * (`services.face_match_threshold`). Chosen on ../shared/eval/faces (test/face-recognition.test.ts):
 * between crops of one person 0.78–0.89 (median 0.85), of different people 0.66–0.80 (median 0.72,
 * 99 % below 0.78). At 0.78, one or two crops registered per person, every other crop is named right
 * and none wrongly; of the 22 faces of the cast in its group photos 20 are named right from
 * UltraFace's boxes (19 from BlazeFace's) and 1 wrongly, and the stranger in them is unknown.
 */
export const DEFAULT_FACE_MATCH_THRESHOLD = 0.78;
