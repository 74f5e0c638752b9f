import { alongPoints, type CurvePoints, inverted } from '../../../piecewise-linear.js';

/**
 * How alike two faces are, from their descriptors (models/face-describer.ts: unit length), as
 * detectd compares them inside: 1 − ‖a − b‖ / 2, in [0, 1]: 1 for the same descriptor, 0 for
 * opposite ones, linear in the Euclidean distance that dlib's face recognizer was trained on. For
 * unit vectors it is also 1 − √((1 − cos) / 2). Unknown people are grouped on this scale; what
 * leaves the server is `reportedSimilarity` of it.
 */
export function faceSimilarity(a: Float32Array, b: Float32Array): number {
  return faceSimilarityFrom(a, b, 0);
}

/**
 * faceSimilarity, or -Infinity as soon as the sum shows the two less alike than `floor` (the rest of
 * it skipped): what a comparison with thousands of faces needs when only the alike ones count.
 */
export function faceSimilarityFrom(a: Float32Array, b: Float32Array, floor: number): number {
  if (a.length !== b.length) throw new RangeError(`descriptors of ${a.length} and ${b.length} values cannot be compared`);
  const farthest = farthestFor(floor);
  const squared = squaredDistanceWithin(a, b, 0, farthest);
  return squared > farthest ? -Infinity : similarityOfSquared(squared);
}

/** The similarity of two descriptors `squared` apart (squared Euclidean distance). */
export const similarityOfSquared = (squared: number) => Math.max(0, 1 - Math.sqrt(squared) / 2);

/** The squared distance past which two faces are less alike than `floor` (Infinity: none is). */
export const farthestFor = (floor: number) => (floor > 0 ? (2 * (1 - floor)) ** 2 : Infinity);

/**
 * The squared Euclidean distance between `a` and the row of `rows` that starts at `offset` (as many
 * values as `a`), or a partial sum past `limit` as soon as it passes it. Eight values a step: every
 * comparison of faces runs here (a kept face is compared with up to 100,000), and V8 runs eight
 * independent products a step about four times as fast as one (docs/performance.md).
 */
export function squaredDistanceWithin(a: Float32Array, rows: Float32Array, offset: number, limit: number): number {
  const width = a.length;
  const whole = width - (width % 8);
  let squared = 0;
  let i = 0;
  for (; i < whole; i += 8) {
    const at = offset + i;
    const d0 = a[i] - rows[at];
    const d1 = a[i + 1] - rows[at + 1];
    const d2 = a[i + 2] - rows[at + 2];
    const d3 = a[i + 3] - rows[at + 3];
    const d4 = a[i + 4] - rows[at + 4];
    const d5 = a[i + 5] - rows[at + 5];
    const d6 = a[i + 6] - rows[at + 6];
    const d7 = a[i + 7] - rows[at + 7];
    squared += d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6 + d7 * d7;
    if (squared > limit) return squared;
  }
  for (; i < width; i++) squared += (a[i] - rows[offset + i]) ** 2;
  return squared;
}

/**
 * The reported scale, as points [internal, reported] joined by straight lines: DeepStack's clients
 * read a similarity above 0.65 as the same person and below 0.55 as two people, and two people's
 * faces are 0.71–0.72 alike inside (the median), so the internal scale read that way calls most
 * strangers the same person. The narrow band between 0.55 and 0.65 holds the internal similarities
 * where one person and two meet, centred on the naming threshold; chosen on the TUNE half of the
 * shared photos and checked on the CHECK half (`npm run eval -- --face-scale`; docs/faces.md
 * "The similarity scale" gives the figures).
 */
const SCALE: CurvePoints = [
  [0, 0],
  [0.79, 0.55],
  [0.81, 0.65],
  [1, 1],
];

const INVERSE_SCALE = inverted(SCALE);

/** A similarity as every answer, the console and the command line give it (and as a service's threshold is set): `SCALE` of the internal one. */
export const reportedSimilarity = (internal: number) => alongPoints(internal, SCALE);

/** The internal similarity a reported one stands for (`reportedSimilarity`'s inverse: the scale only rises). */
export const internalSimilarity = (reported: number) => alongPoints(reported, INVERSE_SCALE);

/**
 * The reported similarity a face must reach to be named as a registered person when its service sets
 * none (`services.face_match_threshold`, on the reported scale): 0.60, the internal 0.80 chosen on
 * the shared photos so that strangers stay unknown (`npm run eval -- --faces`; docs/faces.md gives
 * the figures and what they trade).
 */
export const DEFAULT_FACE_MATCH_THRESHOLD = 0.6;

/**
 * How much more alike than any other registered person, on the internal scale, the person named must
 * be: a face about as like two people is neither. Inside, so that it means one thing whatever the
 * threshold (on the reported scale it is 0.10 within 0.55–0.65 and 0.037 above).
 */
export const FACE_MATCH_MARGIN = 0.02;
