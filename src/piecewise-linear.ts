/** A curve through points [from, to], ascending in both, from [0, _] to [1, _]: straight lines between them. */
export type CurvePoints = readonly (readonly [number, number])[];

/** `value` (clamped to [0, 1]) carried along the straight lines joining `points`. */
export function alongPoints(value: number, points: CurvePoints): number {
  const clamped = Math.min(1, Math.max(0, value));
  const upper = points.findIndex(([from]) => from >= clamped);
  if (upper <= 0) return points[0][1];
  const [[from0, to0], [from1, to1]] = [points[upper - 1], points[upper]];
  return to0 + ((clamped - from0) * (to1 - to0)) / (from1 - from0);
}

/** The same curve read the other way: `to` → `from`. */
export const inverted = (points: CurvePoints): CurvePoints => points.map(([from, to]) => [to, from] as const);
