import { sameForEveryChannel } from '../../../vision/channel-normalisation.js';
import type { InputSize } from '../../../vision/letterbox.js';
import type { OutputTensor } from '../../types.js';
import type { Candidate, ObjectFamily } from '../family.js';

const STRIDES = [8, 16, 32];

/**
 * YOLOX exports: output [1, N, 5 + C], rows tx, ty, tw, th, objectness, class scores (sigmoid
 * already applied), boxes still relative to grid cells of strides 8, 16, 32. Input is BGR,
 * raw 0–255, image at the top-left of the padded input. Needs NMS.
 */
export const yolox: ObjectFamily = {
  name: 'yolox',
  needsNms: true,
  matchesOutput: (dims) => dims.length === 3 && dims[2] > 5 && dims[2] < dims[1],
  classCount: (dims) => dims[2] - 5,
  letterbox: ({ width, height }) => ({ width, height, placement: 'top-left', channelOrder: 'bgr', normalise: sameForEveryChannel(1), padValue: 114 }),
  readCandidates({ data, dims }: OutputTensor, input: InputSize, minScore: number): Candidate[] {
    const rowLength = dims[2];
    const classes = rowLength - 5;
    const candidates: Candidate[] = [];
    let row = 0;
    for (const stride of STRIDES) {
      const [gridColumns, gridRows] = [Math.floor(input.width / stride), Math.floor(input.height / stride)];
      for (let gy = 0; gy < gridRows; gy++) {
        for (let gx = 0; gx < gridColumns; gx++, row++) {
          const offset = row * rowLength;
          const objectness = data[offset + 4];
          if (objectness < minScore) continue; // score = objectness × class ≤ objectness
          let best = -1;
          let classIndex = 0;
          for (let c = 0; c < classes; c++) {
            const value = data[offset + 5 + c];
            if (value > best) {
              best = value;
              classIndex = c;
            }
          }
          const score = objectness * best;
          if (score < minScore) continue;
          const cx = (data[offset] + gx) * stride;
          const cy = (data[offset + 1] + gy) * stride;
          const halfWidth = (Math.exp(data[offset + 2]) * stride) / 2;
          const halfHeight = (Math.exp(data[offset + 3]) * stride) / 2;
          candidates.push({ x1: cx - halfWidth, y1: cy - halfHeight, x2: cx + halfWidth, y2: cy + halfHeight, score, classIndex });
        }
      }
    }
    if (row !== dims[1]) throw new Error(`yolox output has ${dims[1]} rows, grids for input ${input.width}×${input.height} give ${row}`);
    return candidates;
  },
};
