import type { InputSize } from '../../../vision/letterbox.js';
import type { OutputTensor } from '../../types.js';
import type { Candidate, ObjectFamily } from '../family.js';
import { ultralyticsLetterbox } from '../ultralytics-letterbox.js';

/** Values in each row of the output: batch index, x1, y1, x2, y2, class, score. */
const ROW = 7;

/**
 * open-image-models' licence-plate detectors (YOLOv9, exported "end2end"; ../shared/models/plates/README.md):
 * the Ultralytics letterbox (antialiased), output [K, 7] with rows batch, x1, y1, x2, y2, class (always 0), score
 * in letterboxed pixels, already deduplicated (NMS inside the model), in any order, [0, 7] when
 * nothing is found. Its shape says nothing a COCO export could not say too, so a model is of this
 * family only when its configuration names it: `matchesOutput` never claims one.
 */
export const plateDetector: ObjectFamily = {
  name: 'yolo-plates-end2end',
  needsNms: false,
  matchesOutput: () => false,
  classCount: () => 1,
  // Antialiased: plates are small in a camera's frame (docs/plates.md: it found and read more of them).
  letterbox: (input) => ({ ...ultralyticsLetterbox(input), antialias: true }),
  readCandidates({ data, dims }: OutputTensor, _input: InputSize, minScore: number): Candidate[] {
    if (dims.length !== 2 || dims[1] !== ROW) throw new Error(`a plate detector's output is [K, ${ROW}], this one is [${dims.join(', ')}]`);
    const candidates: Candidate[] = [];
    for (let offset = 0; offset < dims[0] * ROW; offset += ROW) {
      const score = data[offset + 6];
      if (score < minScore) continue;
      candidates.push({ x1: data[offset + 1], y1: data[offset + 2], x2: data[offset + 3], y2: data[offset + 4], score, classIndex: 0 });
    }
    return candidates;
  },
};
