import type { Point } from '../vision/image.js';

/** What a registration photo's face is measured by (its five landmarks in the order of models/types.ts FACE_LANDMARKS). */
export interface FaceMeasures {
  /** The face's height in the photo's pixels. */
  readonly height: number;
  /** vision/sharpness.ts on the face's box. */
  readonly sharpness: number;
  /** Left eye, right eye, nose tip, left and right mouth corner. */
  readonly landmarks: readonly Point[];
}

/** Why a face is too poor to register: a face registered from it would name its person less surely, or others as them. */
export interface FaceProblem {
  readonly reason: 'small' | 'blurred' | 'turned';
  readonly message: string;
}

/**
 * The quality check of a registration photo's face (docs/faces.md "Registration quality" has the
 * values measured on good and poor photos): tall enough to hold the detail the describer tells
 * people apart by, sharp enough, and facing the camera.
 */
export const REGISTRATION_QUALITY = {
  /** × the smallest face the describer describes (FaceRecognition.smallestFace): a smaller face is still recognised in a frame, but too coarse to stand for its person. */
  smallestHeightFactor: 2,
  /** vision/sharpness.ts. */
  leastSharpness: 30,
  /** The nose tip's sideways offset from the eyes' midpoint, as a fraction of the distance between the eyes (faceYaw). */
  mostYaw: 0.6,
} as const;

/**
 * How far the face is turned sideways: the nose tip's offset from the midpoint of the eyes along
 * the line between them, over the eyes' distance. 0 faces the camera; beyond about ±0.5 one eye is
 * hidden behind the nose (a profile).
 */
export function faceYaw(landmarks: readonly Point[]): number {
  const [leftEye, rightEye, nose] = landmarks;
  const across = { x: rightEye.x - leftEye.x, y: rightEye.y - leftEye.y };
  const span = Math.hypot(across.x, across.y);
  if (span === 0) return Infinity;
  const fromMiddle = { x: nose.x - (leftEye.x + rightEye.x) / 2, y: nose.y - (leftEye.y + rightEye.y) / 2 };
  return (fromMiddle.x * across.x + fromMiddle.y * across.y) / (span * span);
}

/** Why the face is too poor to register (the first problem found: size, then blur, then pose), or undefined when it is good. `smallestFace`: FaceRecognition.smallestFace. */
export function registrationProblem(face: FaceMeasures, smallestFace: number): FaceProblem | undefined {
  const { smallestHeightFactor, leastSharpness, mostYaw } = REGISTRATION_QUALITY;
  const smallestHeight = smallestHeightFactor * smallestFace;
  const height = Math.round(face.height);
  if (height < smallestHeight) return { reason: 'small', message: `the face is ${height} px tall; a registration photo's face must be at least ${smallestHeight} px tall` };
  const sharpness = Math.round(face.sharpness);
  if (sharpness < leastSharpness) return { reason: 'blurred', message: `the face is blurred (sharpness ${sharpness}; at least ${leastSharpness} needed)` };
  const yaw = faceYaw(face.landmarks);
  if (!(Math.abs(yaw) <= mostYaw)) return { reason: 'turned', message: `the face is turned sideways (yaw ${yaw.toFixed(2)}; at most ±${mostYaw} allowed): send a photo facing the camera` };
  return undefined;
}
