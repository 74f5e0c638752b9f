import { intersectionOverUnion } from '../../models/nms.js';
import type { Detection } from '../../models/types.js';
import type { Box } from '../../vision/image.js';

/**
 * Where the plate detector looks besides the whole image. Shrunk whole to its 416 px input, a
 * 1080p camera frame's plate of 40–72 px is 9–16 px: too small to find. Square windows of
 * `size` px, at full resolution, bring it to 26–47 px. Neighbours overlap by `overlap` px, more
 * than a far plate is wide, so every such plate lies whole inside some window.
 * (Chosen on the far-camera set's tune half: docs/plates.md.)
 */
export interface WindowSpec {
  readonly size: number;
  readonly overlap: number;
}

export const PLATE_WINDOWS: WindowSpec = { size: 640, overlap: 128 };

/** Starts of windows of `size` covering [0, length), overlapping by at least `overlap`, spread evenly, on whole pixels. */
function starts(length: number, { size, overlap }: WindowSpec): number[] {
  if (length <= size) return [0];
  const count = Math.ceil((length - overlap) / (size - overlap));
  return Array.from({ length: count }, (_, index) => Math.round((index * (length - size)) / (count - 1)));
}

/** The windows of a `width` × `height` image, row by row; none when one window would hold it whole (the whole image's pass already sees it at least that large). */
export function plateWindows(width: number, height: number, spec: WindowSpec = PLATE_WINDOWS): Box[] {
  if (width <= spec.size && height <= spec.size) return [];
  return starts(height, spec).flatMap((top) =>
    starts(width, spec).map((left) => ({ left, top, right: Math.min(width, left + spec.size), bottom: Math.min(height, top + spec.size) })),
  );
}

/** How close to a window's edge inside the image a box counts as cut by it, px. */
const EDGE = 2;
/** Boxes overlapping more than this (IoU) are the same plate seen twice. */
const SAME_PLATE_IOU = 0.3;

/** Whether `box` touches one of `window`'s edges that lie inside the image: the window may have cut the plate there. */
function cutByWindow(box: Box, window: Box, width: number, height: number): boolean {
  return (
    (window.left > 0 && box.left - window.left < EDGE) ||
    (window.top > 0 && box.top - window.top < EDGE) ||
    (window.right < width && window.right - box.right < EDGE) ||
    (window.bottom < height && window.bottom - box.bottom < EDGE)
  );
}

const corners = (box: Box) => ({ x1: box.left, y1: box.top, x2: box.right, y2: box.bottom });

/**
 * The plates of the whole image's pass and of its windows, each with every box that shows it:
 * the whole image's box first where it found the plate, then the windows' boxes of the same plate
 * (IoU over SAME_PLATE_IOU), highest score first: every one is read, as a box from a shrunk whole
 * image can be loose on a small plate and a window's can shift a large one's crop. A
 * window's box on its edge inside the image is dropped (part of a plate that a neighbouring
 * window or the whole pass holds whole). Plates come highest score first.
 */
export function mergeWindowDetections(
  whole: readonly Detection[],
  windows: readonly { readonly box: Box; readonly detections: readonly Detection[] }[],
  width: number,
  height: number,
): Detection[][] {
  const seen = windows.flatMap((window) => window.detections.filter((detection) => !cutByWindow(detection.box, window.box, width, height)));
  const plates: Detection[][] = whole.map((detection) => [detection]);
  for (const candidate of seen.sort((a, b) => b.score - a.score)) {
    const same = plates.find(([first]) => intersectionOverUnion(corners(first.box), corners(candidate.box)) > SAME_PLATE_IOU);
    if (same) same.push(candidate);
    else plates.push([candidate]);
  }
  const best = (boxes: readonly Detection[]) => Math.max(...boxes.map((box) => box.score));
  return plates.sort((a, b) => best(b) - best(a));
}
