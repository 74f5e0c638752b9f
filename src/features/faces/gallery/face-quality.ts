import type { Box, Point } from '../../../vision/image.js';

/** What a registration photo's face is measured by (its five landmarks in the order of models/types.ts FACE_LANDMARKS). */
export interface FaceMeasures {
  /** The face's height in the photo's pixels. */
  readonly height: number;
  /** vision/sharpness.ts on the face's box. */
  readonly sharpness: number;
  /** Left eye, right eye, nose tip, left and right mouth corner. */
  readonly landmarks: readonly Point[];
}

/** Why a photo's face cannot be registered: too small or too blurred for the describer to describe its person, or one of several faces none of which stands out (none chosen). */
export interface FaceProblem {
  readonly reason: 'small' | 'blurred' | 'several';
  readonly message: string;
}

/** Why a registered face is weak: it describes its person, less surely than a good photo (it counts only for a person with no good photo). */
export interface FaceWarning {
  readonly reason: 'small' | 'soft' | 'turned';
  readonly message: string;
}

/** A registration photo's face judged: refused (`problem`), or taken, weak when it has warnings. */
export interface FaceQuality {
  readonly problem?: FaceProblem;
  readonly warnings: readonly FaceWarning[];
}

/**
 * The bounds of a registration photo's face (docs/faces.md "Registration quality" has the values
 * measured: where the describer stops telling its person apart, and where it starts to tell them
 * less surely). Only what cannot be described is refused; the rest is taken, weak or good.
 */
export const REGISTRATION_QUALITY = {
  /** Pixels (2 × the 24 px the describer describes, models/face-describer.ts): a smaller face is taken, weak. */
  goodHeight: 48,
  /** vision/sharpness.ts: below it the describer no longer describes its person; refused. */
  leastSharpness: 4,
  /** vision/sharpness.ts: below it the face is taken, weak (soft). */
  goodSharpness: 15,
  /** The nose tip's sideways offset from the eyes' midpoint, as a fraction of the distance between the eyes (faceYaw): beyond it the face is taken, weak (turned). */
  goodYaw: 0.6,
  /**
   * A photo's subject, among several faces with none chosen by its box: a face at least this many
   * times as prominent as every other (photoSubject). Set on group photos (all refused) and photos
   * framed around one person (docs/faces.md "Several faces").
   */
  leastProminence: 1.5,
} as const;

/**
 * How much a face's prominence loses from the photo's middle to its corner: a photographer frames
 * their subject, and a face at the frame's side is the neighbour.
 */
const OFF_CENTRE_DISCOUNT = 0.5;

/** A face's prominence in its photo: its height, less up to OFF_CENTRE_DISCOUNT of it as its centre lies away from the photo's middle towards a corner. */
function prominence(box: Box, photo: { readonly width: number; readonly height: number }): number {
  const offCentre = Math.hypot((box.left + box.right - photo.width) / 2, (box.top + box.bottom - photo.height) / 2) / (Math.hypot(photo.width, photo.height) / 2);
  return (box.bottom - box.top) * (1 - OFF_CENTRE_DISCOUNT * Math.min(1, offCentre));
}

/**
 * The face a registration photo shows when none was chosen by its box: its only face, or among
 * several the one at least `leastProminence` times as prominent as every other (larger, and nearer the
 * middle); otherwise a `several` problem naming how many faces there are — unless none is `smallestFace`
 * tall (FaceRecognition.smallestFace): no choice would help, and the most prominent is judged (too small).
 * Undefined when it shows none.
 */
export function photoSubject<T extends { readonly box: Box }>(faces: readonly T[], photo: { readonly width: number; readonly height: number }, smallestFace: number): { readonly face: T; readonly problem?: FaceProblem } | undefined {
  const ranked = faces.map((face) => ({ face, prominence: prominence(face.box, photo) })).sort((a, b) => b.prominence - a.prominence);
  const [first, second] = ranked;
  if (!first) return undefined;
  const describable = faces.some(({ box }) => Math.round(box.bottom - box.top) >= smallestFace);
  if (!second || !describable || first.prominence >= REGISTRATION_QUALITY.leastProminence * second.prominence) return { face: first.face };
  const heights = faces.map(({ box }) => Math.round(box.bottom - box.top)).sort((a, b) => b - a);
  const listed = heights.length > 4 ? `${heights.slice(0, 3).join(', ')}, … px` : `${heights.slice(0, -1).join(', ')} and ${heights.at(-1)} px`;
  return {
    face: first.face,
    problem: { reason: 'several', message: `the photo shows ${faces.length} faces (${listed} tall) and none stands out as the person's: one must be at least ${REGISTRATION_QUALITY.leastProminence} × as prominent as every other (larger, nearer the middle)` },
  };
}

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

/** The warning of a face `height` px tall that is smaller than a good one, or undefined: all a kept face (its photo not kept) is judged by. */
export function heightWarning(height: number): FaceWarning | undefined {
  const { goodHeight } = REGISTRATION_QUALITY;
  const rounded = Math.round(height);
  return rounded < goodHeight ? { reason: 'small', message: `the face is ${rounded} px tall; a face at least ${goodHeight} px tall describes its person more surely` } : undefined;
}

/**
 * A registration photo's face judged: refused when it is smaller than the describer describes or
 * too blurred for it (the first found: size, then blur); else taken, with a warning for each way
 * it is weak (small, soft, turned). `smallestFace`: FaceRecognition.smallestFace.
 */
export function registrationQuality(face: FaceMeasures, smallestFace: number): FaceQuality {
  const { leastSharpness, goodSharpness, goodYaw } = REGISTRATION_QUALITY;
  const height = Math.round(face.height);
  if (height < smallestFace) return { problem: { reason: 'small', message: `the face is ${height} px tall, too small to describe: a registration photo's face must be at least ${smallestFace} px tall` }, warnings: [] };
  const sharpness = Math.round(face.sharpness);
  if (sharpness < leastSharpness) return { problem: { reason: 'blurred', message: `the face is too blurred to describe (sharpness ${sharpness}; at least ${leastSharpness} needed)` }, warnings: [] };
  const yaw = faceYaw(face.landmarks);
  const warnings: (FaceWarning | undefined)[] = [
    heightWarning(face.height),
    sharpness < goodSharpness ? { reason: 'soft', message: `the face is soft (sharpness ${sharpness}; ${goodSharpness} or more describes its person more surely)` } : undefined,
    Math.abs(yaw) <= goodYaw ? undefined : { reason: 'turned', message: `the face is turned sideways (yaw ${Number.isFinite(yaw) ? yaw.toFixed(2) : 'unmeasurable'}; a face within ±${goodYaw} describes its person more surely)` },
  ];
  return { warnings: warnings.filter((warning) => warning !== undefined) };
}
