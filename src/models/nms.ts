import type { Candidate } from './families/family.js';

/** An axis-aligned box by its corners (x1, y1 top-left; x2, y2 bottom-right). */
export interface Corners {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

export function intersectionOverUnion(a: Corners, b: Corners): number {
  const width = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const height = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - intersection;
  return union > 0 ? intersection / union : 0;
}

/**
 * Greedy per-class non-maximum suppression: keeps the best box of each overlapping same-class
 * group, highest score first, until `limit` boxes are kept. Returns them sorted by score.
 */
export function nonMaxSuppression(candidates: Candidate[], iouThreshold: number, limit: number): Candidate[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score);
  const keptByClass = new Map<number, Candidate[]>();
  const kept: Candidate[] = [];
  for (const candidate of sorted) {
    let sameClass = keptByClass.get(candidate.classIndex);
    if (!sameClass) keptByClass.set(candidate.classIndex, (sameClass = []));
    if (sameClass.some((other) => intersectionOverUnion(candidate, other) > iouThreshold)) continue;
    sameClass.push(candidate);
    kept.push(candidate);
    if (kept.length === limit) break;
  }
  return kept;
}
