import type { Point } from '../vision/image.js';

/** iBUG 300-W indices (0-based) of the eyes' contours and of the points alignment takes as they are. */
const IMAGE_LEFT_EYE = [36, 37, 38, 39, 40, 41];
const IMAGE_RIGHT_EYE = [42, 43, 44, 45, 46, 47];
const NOSE_TIP = 30;
const IMAGE_LEFT_MOUTH_CORNER = 48;
const IMAGE_RIGHT_MOUTH_CORNER = 54;

function centre(points: readonly Point[], indices: readonly number[]): Point {
  let x = 0;
  let y = 0;
  for (const index of indices) {
    x += points[index].x;
    y += points[index].y;
  }
  return { x: x / indices.length, y: y / indices.length };
}

/**
 * The five points a face is aligned by — image-left eye centre, image-right eye centre, nose tip,
 * image-left mouth corner, image-right mouth corner, the order YuNet and RetinaFace give them —
 * from 68 points in the iBUG 300-W order (face-api's FaceLandmark68Net): each eye's centre is the
 * mean of its six contour points (face-api's `getLeftEye()` is the image-left one).
 */
export function fivePointsOf68(points: readonly Point[]): Point[] {
  if (points.length !== 68) throw new RangeError(`expected 68 face landmarks, got ${points.length}`);
  return [
    centre(points, IMAGE_LEFT_EYE),
    centre(points, IMAGE_RIGHT_EYE),
    points[NOSE_TIP],
    points[IMAGE_LEFT_MOUTH_CORNER],
    points[IMAGE_RIGHT_MOUTH_CORNER],
  ].map(({ x, y }) => ({ x, y }));
}
