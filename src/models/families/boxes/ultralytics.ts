import type { InputSize } from '../../../vision/letterbox.js';
import type { OutputTensor } from '../../types.js';
import type { Candidate, ObjectFamily } from '../family.js';
import { ultralyticsLetterbox } from '../ultralytics-letterbox.js';

/**
 * YOLOv8 / YOLO11 exports: output [1, 4 + C, N], channel-major. Rows 0–3 are cx, cy, w, h;
 * rows 4.. are per-class sigmoid scores (no objectness). Needs NMS.
 */
export const ultralytics: ObjectFamily = {
  name: 'ultralytics',
  needsNms: true,
  matchesOutput: (dims) => dims.length === 3 && dims[1] > 4 && dims[1] < dims[2],
  classCount: (dims) => dims[1] - 4,
  letterbox: ultralyticsLetterbox,
  readCandidates({ data, dims }: OutputTensor, _input: InputSize, minScore: number): Candidate[] {
    const anchors = dims[2];
    const classes = dims[1] - 4;
    const candidates: Candidate[] = [];
    for (let anchor = 0; anchor < anchors; anchor++) {
      let best = -1;
      let classIndex = 0;
      for (let c = 0, offset = 4 * anchors + anchor; c < classes; c++, offset += anchors) {
        if (data[offset] > best) {
          best = data[offset];
          classIndex = c;
        }
      }
      if (best < minScore) continue;
      const cx = data[anchor];
      const cy = data[anchors + anchor];
      const halfWidth = data[2 * anchors + anchor] / 2;
      const halfHeight = data[3 * anchors + anchor] / 2;
      candidates.push({ x1: cx - halfWidth, y1: cy - halfHeight, x2: cx + halfWidth, y2: cy + halfHeight, score: best, classIndex });
    }
    return candidates;
  },
};
