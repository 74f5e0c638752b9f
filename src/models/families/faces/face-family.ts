import type { InputTransform, RawOutput, TensorDeclaration } from '../../types.js';
import { padGeometry, type PadSpec } from '../../../vision/pad.js';
import type { StretchSpec } from '../../../vision/stretch.js';
import type { Candidate } from '../family.js';

/** How one image goes into a face detector: how its input is filled, its shape, and the geometry that maps boxes back. */
export interface FaceInput {
  readonly layout: StretchSpec | PadSpec;
  /** [1, 3, height, width]. */
  readonly dims: readonly number[];
  readonly transform: InputTransform;
}

/**
 * Points (raw score → confidence), increasing in both: a detector's own score mapped to the share
 * of its detections at that score that are faces, measured on the shared WIDER FACE half
 * (`npm run eval -- --faces --calibrate`). A confidence then means the same whichever detector
 * answers, and a client's threshold (DeepStack clients send 0.4–0.5) keeps a phantom face out.
 */
export type Calibration = readonly (readonly [raw: number, confidence: number])[];

/** What makes a face detector family different: its outputs, how its input is filled, how its output is read. */
export interface FaceFamily {
  readonly name: string;
  /** IoU above which two faces are one (its reference pipeline's NMS). */
  readonly nmsIou: number;
  readonly calibration: Calibration;
  /** Whether the detector gives each face's five landmarks. */
  readonly landmarks: boolean;
  /** True for a model declaring this family's outputs. */
  matchesOutputs(outputs: readonly TensorDeclaration[]): boolean;
  /**
   * The input for an image of `width` × `height`, for a model whose declared input shape is
   * `shape` ([N, 3, H, W], a number where fixed); `maxSide` bounds a dynamic input's longer side.
   */
  input(width: number, height: number, shape: readonly (number | string)[], maxSide: number): FaceInput;
  /** Faces whose raw score is at least `minRaw`, in network-input pixels, with raw scores. */
  readFaces(output: RawOutput, input: FaceInput, minRaw: number): Candidate[];
}

/** Piecewise-linear through (0, 0), the points and (1, 1). */
function interpolate(points: Calibration, value: number, from: 0 | 1, to: 0 | 1): number {
  const all = [[0, 0] as const, ...points, [1, 1] as const];
  for (let i = 1; i < all.length; i++) {
    const [low, high] = [all[i - 1], all[i]];
    if (value <= high[from]) {
      const span = high[from] - low[from];
      return span > 0 ? low[to] + ((value - low[from]) / span) * (high[to] - low[to]) : high[to];
    }
  }
  return 1;
}

export const confidenceOf = (calibration: Calibration, raw: number) => interpolate(calibration, Math.min(1, Math.max(0, raw)), 0, 1);
/** The lowest raw score whose confidence reaches `confidence`. */
export const rawScoreFor = (calibration: Calibration, confidence: number) => interpolate(calibration, Math.min(1, Math.max(0, confidence)), 1, 0);

/**
 * The input of a detector that takes an image at its own size (YuNet, RetinaFace): brought down to
 * `maxSide` at most, at the top-left corner of an input padded to multiples of `stride` — or, for a
 * model exported with a fixed input, fitted into that size.
 */
export function paddedFaceInput(
  width: number,
  height: number,
  shape: readonly (number | string)[],
  maxSide: number,
  pixels: Pick<PadSpec, 'channelOrder' | 'normalise'> & { readonly stride: number },
): FaceInput {
  const [, , fixedHeight, fixedWidth] = shape;
  let geometry: Pick<PadSpec, 'width' | 'height' | 'resizedWidth' | 'resizedHeight'>;
  if (typeof fixedWidth === 'number' && typeof fixedHeight === 'number') {
    const scale = Math.min(1, fixedWidth / width, fixedHeight / height);
    geometry = { width: fixedWidth, height: fixedHeight, resizedWidth: Math.max(1, Math.round(width * scale)), resizedHeight: Math.max(1, Math.round(height * scale)) };
  } else {
    geometry = padGeometry(width, height, maxSide, pixels.stride);
  }
  const layout: PadSpec = { ...geometry, channelOrder: pixels.channelOrder, normalise: pixels.normalise };
  return {
    layout,
    dims: [1, 3, geometry.height, geometry.width],
    transform: { scaleX: geometry.resizedWidth / width, scaleY: geometry.resizedHeight / height, padLeft: 0, padTop: 0 },
  };
}
