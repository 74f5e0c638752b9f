import type { RawOutput } from '../../types.js';
import type { Candidate } from '../family.js';
import { hasOutputs, tensorNamed } from '../tensors.js';
import { type FaceFamily, type FaceInput, paddedFaceInput } from './face-family.js';

/** Each stride's grid and the two prior sizes of its cells, in pixels. */
const PRIORS = [
  { stride: 8, sizes: [16, 32] },
  { stride: 16, sizes: [64, 128] },
  { stride: 32, sizes: [256, 512] },
] as const;
const CENTRE_VARIANCE = 0.1;
const SIZE_VARIANCE = 0.2;

/**
 * RetinaFace, MobileNet-0.25 (biubug6's weights, ../shared/models/faces/README.md): BGR minus
 * (104, 117, 123), at its own size. Priors on ⌈H/s⌉×⌈W/s⌉ grids (strides 8, 16, 32, two sizes a
 * cell), decoded with variances 0.1 and 0.2; outputs `loc` (box), `conf` (softmax: background,
 * face) and `iou` (the five landmarks, the exporter's name), landmarks in the order of
 * models/types.ts's FACE_LANDMARKS. NMS at IoU 0.4.
 */
export const retinaface: FaceFamily = {
  name: 'retinaface',
  nmsIou: 0.4,
  landmarks: true,
  calibration: [
    [0.05, 0.06],
    [0.15, 0.16],
    [0.25, 0.36],
    [0.35, 0.5],
    [0.45, 0.59],
    [0.55, 0.68],
    [0.75, 0.84],
    [0.95, 0.99],
  ],
  matchesOutputs: (outputs) => hasOutputs(outputs, ['loc', 'conf', 'iou']),
  // R, G, B means of the BGR (104, 117, 123) the network was trained with.
  input: (width, height, shape, maxSide) => paddedFaceInput(width, height, shape, maxSide, { channelOrder: 'bgr', normalise: { scale: 1, mean: [123, 117, 104], std: [1, 1, 1] }, stride: 32 }),
  readFaces(output: RawOutput, input: FaceInput, minRaw: number): Candidate[] {
    const [, , height, width] = input.dims;
    const loc = tensorNamed(output, 'loc').data;
    const conf = tensorNamed(output, 'conf').data;
    const points = tensorNamed(output, 'iou').data;
    const faces: Candidate[] = [];
    let prior = 0;
    for (const { stride, sizes } of PRIORS) {
      const rows = Math.ceil(height / stride);
      const columns = Math.ceil(width / stride);
      for (let row = 0; row < rows; row++) {
        for (let column = 0; column < columns; column++) {
          for (const size of sizes) {
            const score = conf[2 * prior + 1];
            if (score >= minRaw) {
              const priorX = (column + 0.5) * stride;
              const priorY = (row + 0.5) * stride;
              const centreX = priorX + loc[4 * prior] * CENTRE_VARIANCE * size;
              const centreY = priorY + loc[4 * prior + 1] * CENTRE_VARIANCE * size;
              const halfWidth = (size * Math.exp(loc[4 * prior + 2] * SIZE_VARIANCE)) / 2;
              const halfHeight = (size * Math.exp(loc[4 * prior + 3] * SIZE_VARIANCE)) / 2;
              const landmarks: number[] = [];
              for (let k = 0; k < 10; k += 2) landmarks.push(priorX + points[10 * prior + k] * CENTRE_VARIANCE * size, priorY + points[10 * prior + k + 1] * CENTRE_VARIANCE * size);
              faces.push({ x1: centreX - halfWidth, y1: centreY - halfHeight, x2: centreX + halfWidth, y2: centreY + halfHeight, score, classIndex: 0, landmarks });
            }
            prior++;
          }
        }
      }
    }
    if (2 * prior !== conf.length) throw new Error(`retinaface answered ${conf.length / 2} priors, a ${width}×${height} input has ${prior}`);
    return faces;
  },
};
