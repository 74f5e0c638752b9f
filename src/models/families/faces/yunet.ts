import { sameForEveryChannel } from '../../../vision/channel-normalisation.js';
import type { RawOutput } from '../../types.js';
import type { Candidate } from '../family.js';
import { hasOutputs, tensorNamed } from '../tensors.js';
import { type FaceFamily, type FaceInput, paddedFaceInput } from './face-family.js';

const STRIDES = [8, 16, 32] as const;
const OUTPUTS = STRIDES.flatMap((stride) => ['cls', 'obj', 'bbox', 'kps'].map((kind) => `${kind}_${stride}`));

/**
 * YuNet (libfacedetection, ../shared/models/faces/README.md): the image in BGR, raw 0–255, at its
 * own size padded right and bottom to multiples of 32. For each stride s a (H/s)×(W/s) grid, row by
 * row: score √(cls·obj) (as OpenCV's FaceDetectorYN), box centre ((c, r) + bbox[0..1])·s, size
 * exp(bbox[2..3])·s, landmark k ((c, r) + kps[2k..2k+1])·s, in the order of models/types.ts's
 * FACE_LANDMARKS. NMS at IoU 0.45.
 */
export const yunet: FaceFamily = {
  name: 'yunet',
  nmsIou: 0.45,
  landmarks: true,
  calibration: [
    [0.05, 0.01],
    [0.15, 0.04],
    [0.25, 0.08],
    [0.35, 0.17],
    [0.45, 0.23],
    [0.55, 0.43],
    [0.65, 0.6],
    [0.75, 0.85],
    [0.85, 0.99],
    [0.95, 0.999],
  ],
  matchesOutputs: (outputs) => hasOutputs(outputs, OUTPUTS),
  input: (width, height, shape, maxSide) => paddedFaceInput(width, height, shape, maxSide, { channelOrder: 'bgr', normalise: sameForEveryChannel(1), stride: 32 }),
  readFaces(output: RawOutput, input: FaceInput, minRaw: number): Candidate[] {
    const [, , height, width] = input.dims;
    const faces: Candidate[] = [];
    for (const stride of STRIDES) {
      const cls = tensorNamed(output, `cls_${stride}`).data;
      const obj = tensorNamed(output, `obj_${stride}`).data;
      const bbox = tensorNamed(output, `bbox_${stride}`).data;
      const kps = tensorNamed(output, `kps_${stride}`).data;
      const columns = width / stride;
      if (cls.length !== columns * (height / stride)) throw new Error(`yunet cls_${stride} has ${cls.length} cells, a ${width}×${height} input has ${columns * (height / stride)}`);
      const clamp = (value: number) => Math.min(1, Math.max(0, value));
      for (let cell = 0; cell < cls.length; cell++) {
        const score = Math.sqrt(clamp(cls[cell]) * clamp(obj[cell]));
        if (score < minRaw) continue;
        const column = cell % columns;
        const row = (cell - column) / columns;
        const centreX = (column + bbox[4 * cell]) * stride;
        const centreY = (row + bbox[4 * cell + 1]) * stride;
        const halfWidth = (Math.exp(bbox[4 * cell + 2]) * stride) / 2;
        const halfHeight = (Math.exp(bbox[4 * cell + 3]) * stride) / 2;
        const landmarks: number[] = [];
        for (let k = 0; k < 10; k += 2) landmarks.push((column + kps[10 * cell + k]) * stride, (row + kps[10 * cell + k + 1]) * stride);
        faces.push({ x1: centreX - halfWidth, y1: centreY - halfHeight, x2: centreX + halfWidth, y2: centreY + halfHeight, score, classIndex: 0, landmarks });
      }
    }
    return faces;
  },
};
