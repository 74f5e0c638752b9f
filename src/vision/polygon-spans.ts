import type { Box, Point } from './image.js';

/**
 * Per row of a `width` × `height` sampling of `box` (pixel centres at box.left + (x + ½) · box
 * width / width, and so down), the columns whose centre lies inside `polygon` (even-odd rule), as
 * [from, to) pairs one after another: one scan line per row instead of a test per pixel.
 */
export function polygonSpans(polygon: readonly Point[], box: Box, width: number, height: number): number[][] {
  const scaleX = (box.right - box.left) / width;
  const scaleY = (box.bottom - box.top) / height;
  // The first column whose centre lies at or right of x.
  const column = (x: number) => Math.min(width, Math.max(0, Math.ceil((x - box.left) / scaleX - 0.5)));
  return Array.from({ length: height }, (_, row) => {
    const y = box.top + (row + 0.5) * scaleY;
    const crossings: number[] = [];
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const [a, b] = [polygon[i], polygon[j]];
      if (a.y > y !== b.y > y) crossings.push(((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x);
    }
    crossings.sort((a, b) => a - b);
    const spans: number[] = [];
    for (let k = 0; k + 1 < crossings.length; k += 2) spans.push(column(crossings[k]), column(crossings[k + 1]));
    return spans;
  });
}
