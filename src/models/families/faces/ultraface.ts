import { sameForEveryChannel } from '../../../vision/channel-normalisation.js';
import type { RawOutput } from '../../types.js';
import type { Candidate } from '../family.js';
import { tensorNamed } from '../tensors.js';
import type { FaceFamily, FaceInput } from './face-family.js';

/**
 * UltraFace ("Ultra-Light-Fast-Generic-Face-Detector-1MB", trained on WIDER FACE): a fixed, not
 * square, input (RFB-640: 640×480; RFB-320: 320×240) over which the whole image is stretched, RGB
 * (v − 127) / 128; outputs `scores [1, N, 2]` (background, face; softmax applied) and
 * `boxes [1, N, 4]` (x1, y1, x2, y2 as fractions of the input). No landmarks. NMS at IoU 0.3.
 */
export const ultraface: FaceFamily = {
  name: 'ultraface',
  nmsIou: 0.3,
  landmarks: false,
  calibration: [
    [0.15, 0.1],
    [0.25, 0.25],
    [0.35, 0.31],
    [0.45, 0.54],
    [0.6, 0.62],
    [0.75, 0.83],
    [0.85, 0.94],
    [0.95, 0.99],
  ],
  matchesOutputs(outputs) {
    const [scores, boxes] = outputs;
    return outputs.length === 2 && scores.name === 'scores' && boxes.name === 'boxes' && scores.shape?.length === 3 && scores.shape[2] === 2 && boxes.shape?.length === 3 && boxes.shape[2] === 4;
  },
  input(width, height, shape): FaceInput {
    const [, channels, inputHeight, inputWidth] = shape;
    if (channels !== 3 || typeof inputWidth !== 'number' || typeof inputHeight !== 'number') {
      throw new Error(`an UltraFace model needs a fixed [1, 3, height, width] input, this one is [${shape.join(', ')}]`);
    }
    return {
      layout: { width: inputWidth, height: inputHeight, normalise: sameForEveryChannel(1, 127, 128) },
      dims: [1, 3, inputHeight, inputWidth],
      transform: { scaleX: inputWidth / width, scaleY: inputHeight / height, padLeft: 0, padTop: 0 },
    };
  },
  readFaces(output: RawOutput, input: FaceInput, minRaw: number): Candidate[] {
    const [, , height, width] = input.dims;
    const scores = tensorNamed(output, 'scores').data;
    const boxes = tensorNamed(output, 'boxes').data;
    const faces: Candidate[] = [];
    for (let row = 0; row < scores.length / 2; row++) {
      const score = scores[2 * row + 1];
      if (score < minRaw) continue;
      faces.push({ x1: boxes[4 * row] * width, y1: boxes[4 * row + 1] * height, x2: boxes[4 * row + 2] * width, y2: boxes[4 * row + 3] * height, score, classIndex: 0 });
    }
    return faces;
  },
};
