/** An axis-aligned rectangle in image pixels. */
export interface Rect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** A box to label and the size of its tag. */
export interface LabelRequest {
  readonly box: Rect;
  readonly tag: { readonly width: number; readonly height: number };
}

function overlapArea(a: Rect, b: Rect): number {
  const width = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const height = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  return width > 0 && height > 0 ? width * height : 0;
}

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), Math.max(low, high));

/** Where a tag may go, in order of preference: the corners just outside and just inside the box, then stacked further above it. */
function candidates(box: Rect, tag: LabelRequest['tag']): { left: number; top: number }[] {
  const right = box.left + box.width - tag.width;
  const bottom = box.top + box.height;
  const spots = [
    { left: box.left, top: box.top - tag.height },
    { left: box.left, top: box.top },
    { left: right, top: box.top - tag.height },
    { left: right, top: box.top },
    { left: box.left, top: bottom },
    { left: box.left, top: bottom - tag.height },
    { left: right, top: bottom },
    { left: right, top: bottom - tag.height },
  ];
  for (let step = 1; step <= 4; step++) spots.push({ left: box.left, top: box.top + step * tag.height }, { left: box.left, top: box.top - (step + 1) * tag.height });
  return spots;
}

/**
 * Places one tag per box so that tags stay inside the image and do not cover each other: greedily,
 * in the order given (highest confidence first, so the surest objects get the best spots), each tag
 * takes the first candidate spot around its box that overlaps no tag placed before; when every spot
 * overlaps, the one that overlaps least. Box outlines may be crossed: a tag hides a little of a
 * line, never another tag's text.
 */
export function placeLabels(image: { readonly width: number; readonly height: number }, requests: readonly LabelRequest[]): Rect[] {
  const placed: Rect[] = [];
  for (const { box, tag } of requests) {
    let best: Rect | undefined;
    let bestOverlap = Number.POSITIVE_INFINITY;
    for (const spot of candidates(box, tag)) {
      const rect = { left: clamp(spot.left, 0, image.width - tag.width), top: clamp(spot.top, 0, image.height - tag.height), width: tag.width, height: tag.height };
      const overlap = placed.reduce((sum, other) => sum + overlapArea(rect, other), 0);
      if (overlap < bestOverlap) {
        best = rect;
        bestOverlap = overlap;
        if (overlap === 0) break;
      }
    }
    placed.push(best!);
  }
  return placed;
}
