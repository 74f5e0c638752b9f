import type { Kysely, Migration } from 'kysely';
import { alongPoints, type CurvePoints, inverted } from '../../../piecewise-linear.js';

/**
 * The reported similarity scale as this migration found it (src/faces/face-similarity.ts then):
 * points [internal, reported] joined by straight lines. Copied, not imported: a migration keeps
 * the meaning it had when it shipped.
 */
const SCALE: CurvePoints = [
  [0, 0],
  [0.79, 0.55],
  [0.81, 0.65],
  [1, 1],
];

/** Each service's own face match threshold carried along `points`, rounded to 4 places (a threshold is typed as 0.8, not 0.800000001). */
async function carryThresholds(db: Kysely<any>, points: CurvePoints): Promise<void> {
  const services = (await db.selectFrom('services').select(['id', 'face_match_threshold']).where('face_match_threshold', 'is not', null).execute()) as { id: string; face_match_threshold: number }[];
  for (const { id, face_match_threshold: threshold } of services) {
    await db.updateTable('services').set({ face_match_threshold: Math.round(alongPoints(threshold, points) * 1e4) / 1e4 }).where('id', '=', id).execute();
  }
}

/**
 * Face match thresholds move to the reported similarity scale: a similarity leaves the server on
 * DeepStack's reading (same person above 0.65, two people below 0.55), and a service's own threshold
 * is set on the scale it reads. Each stored threshold (the internal similarity until now) becomes
 * the reported similarity that names the same faces; null (the default) stays null.
 */
export const faceSimilarityScale: Migration = {
  up: (db: Kysely<any>) => carryThresholds(db, SCALE),
  down: (db: Kysely<any>) => carryThresholds(db, inverted(SCALE)),
};
