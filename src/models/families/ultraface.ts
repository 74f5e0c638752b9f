import type { TensorDeclaration } from '../onnx/onnx-file.js';
import type { RawOutput } from '../types.js';
import type { Candidate } from './family.js';
import type { StretchSpec } from '../../vision/stretch.js';

/**
 * UltraFace ("Ultra-Light-Fast-Generic-Face-Detector-1MB", trained on WIDER FACE): a face
 * detector with a fixed, not square, input (RFB-640: 640×480; RFB-320: 320×240) over which the
 * whole image is stretched, RGB (v − 127) / 128; two outputs, `scores [1, N, 2]` (background,
 * face; softmax applied) and `boxes [1, N, 4]` (x1, y1, x2, y2 as fractions of the input).
 * The session worker answers them joined row by row (runtimes/joined-outputs.ts): [1, N, 6] rows
 * of background, face, x1, y1, x2, y2. Needs NMS, at IoU 0.3 as its reference pipeline.
 */
export const ultraface = {
  name: 'ultraface',
  nmsIou: 0.3,
  /** True for a model declaring UltraFace's outputs: `scores [1, N, 2]` then `boxes [1, N, 4]`. */
  matchesOutputs(outputs: readonly TensorDeclaration[]): boolean {
    const [scores, boxes] = outputs;
    return (
      outputs.length === 2 &&
      scores.name === 'scores' &&
      boxes.name === 'boxes' &&
      scores.shape?.length === 3 &&
      scores.shape[2] === 2 &&
      boxes.shape?.length === 3 &&
      boxes.shape[2] === 4
    );
  },
  input(width: number, height: number): StretchSpec {
    return { width, height, mean: 127, scale: 1 / 128 };
  },
  /** Faces scoring at least `minScore`, in network-input pixels of an input `width` × `height`. */
  readCandidates({ data, dims }: RawOutput, width: number, height: number, minScore: number): Candidate[] {
    if (dims.length !== 3 || dims[2] !== 6) throw new Error(`ultraface joined output should be [1, N, 6], is [${dims.join(', ')}]`);
    const candidates: Candidate[] = [];
    for (let row = 0; row < dims[1]; row++) {
      const offset = row * 6;
      const score = data[offset + 1];
      if (score < minScore) continue;
      candidates.push({ x1: data[offset + 2] * width, y1: data[offset + 3] * height, x2: data[offset + 4] * width, y2: data[offset + 5] * height, score, classIndex: 0 });
    }
    return candidates;
  },
};
