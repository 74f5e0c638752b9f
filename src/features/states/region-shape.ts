import type { BoundingBox } from '../../tasks/finding.js';
import type { Point } from '../../vision/image.js';

/** A region as drawn: its name, and a box or a polygon in frame pixels (a polygon's box is its bounds). */
export interface DrawnRegion {
  readonly name: string;
  readonly box: BoundingBox;
  readonly polygon?: readonly Point[];
}

/** A region as a caller sends it (the schema checked the types): a box, or a polygon of [x, y] points. */
export interface SentRegion {
  readonly name: string;
  readonly bounding_box?: BoundingBox;
  readonly polygon?: readonly (readonly [number, number])[];
}

export class RegionRefused extends Error {}

/** The largest frame side a region may lie in, in pixels. */
const MAX_SIDE = 100_000;

/** A region's or a state's name: 1–100 characters, no control characters. */
export function checkedName(name: string, what: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100 || /\p{Cc}/u.test(trimmed)) throw new RegionRefused(`${what} is 1 to 100 characters, no control characters: "${name.slice(0, 40)}" is not`);
  return trimmed;
}

/** Twice the signed area of a polygon (shoelace). */
function doubleArea(points: readonly Point[]): number {
  let sum = 0;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) sum += (points[j].x - points[i].x) * (points[j].y + points[i].y);
  return sum;
}

const inFrame = (value: number) => Number.isFinite(value) && value >= 0 && value <= MAX_SIDE;

/** The region as drawn, or RegionRefused naming what is wrong: an empty or inverted box, a polygon of fewer than 3 points or no area, a point outside any frame. */
export function drawnRegion(sent: SentRegion): DrawnRegion {
  const name = checkedName(sent.name, 'a region\'s name');
  if ((sent.bounding_box === undefined) === (sent.polygon === undefined)) throw new RegionRefused(`region "${name}": give either a bounding_box or a polygon`);
  if (sent.polygon !== undefined) {
    const polygon = sent.polygon.map(([x, y]) => ({ x, y }));
    if (polygon.some((point) => !inFrame(point.x) || !inFrame(point.y))) throw new RegionRefused(`region "${name}": every polygon point lies in the frame, 0 to ${MAX_SIDE} pixels`);
    if (Math.abs(doubleArea(polygon)) < 2) throw new RegionRefused(`region "${name}": its polygon encloses no area (points in a line or repeated)`);
    const xs = polygon.map((point) => point.x);
    const ys = polygon.map((point) => point.y);
    return { name, box: { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) }, polygon };
  }
  const box = sent.bounding_box!;
  if (![box.left, box.top, box.right, box.bottom].every(inFrame)) throw new RegionRefused(`region "${name}": its box lies in the frame, 0 to ${MAX_SIDE} pixels`);
  if (box.right - box.left < 1 || box.bottom - box.top < 1) throw new RegionRefused(`region "${name}": its box needs right > left and bottom > top, at least one pixel apart`);
  return { name, box: { left: box.left, top: box.top, right: box.right, bottom: box.bottom } };
}
