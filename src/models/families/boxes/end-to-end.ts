import type { InputSize } from '../../../vision/letterbox.js';
import type { OutputTensor } from '../../types.js';
import type { Candidate, ObjectFamily } from '../family.js';
import { ultralyticsLetterbox } from '../ultralytics-letterbox.js';

/**
 * YOLO26 / YOLOv10 end-to-end exports: output [1, K, 6], rows x1, y1, x2, y2, score, class id.
 * The model already removed duplicates, so no NMS.
 */
export const endToEnd: ObjectFamily = {
  name: 'end-to-end',
  needsNms: false,
  matchesOutput: (dims) => dims.length === 3 && dims[2] === 6,
  classCount: () => undefined,
  letterbox: ultralyticsLetterbox,
  readCandidates({ data, dims }: OutputTensor, _input: InputSize, minScore: number): Candidate[] {
    const candidates: Candidate[] = [];
    for (let row = 0, offset = 0; row < dims[1]; row++, offset += 6) {
      const score = data[offset + 4];
      if (score < minScore) continue;
      candidates.push({
        x1: data[offset],
        y1: data[offset + 1],
        x2: data[offset + 2],
        y2: data[offset + 3],
        score,
        classIndex: Math.round(data[offset + 5]),
      });
    }
    return candidates;
  },
};
