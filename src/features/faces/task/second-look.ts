import type { LookAgain } from '../../../core/pipeline.js';
import { intersectionOverUnion } from '../../../models/nms.js';
import type { Detection } from '../../../models/types.js';
import { centredView } from '../../../vision/centred-view.js';
import type { Box, RgbImage } from '../../../vision/image.js';

/**
 * The face model's second look at what it found (docs/faces.md, "Phantom faces"): each face whose
 * confidence lies from `from` (below every client's default threshold) to `below`, at least
 * `smallestFace` pixels tall, is shown to it again alone — centred, `faceSide` pixels tall, in a
 * `side`-pixel view — and keeps the lower of the two confidences (at least KEPT_SHARE of its own).
 * A face is found again so; a bear's head, donuts or a zebra's mane that looked like one in its
 * scene mostly are not. Chosen on the shared WIDER half and the person-free photos of
 * coco-val122; checked on those of coco128 (docs/faces.md gives the figures).
 */
const SECOND_LOOK = { from: 0.3, below: 0.95, smallestFace: 16, side: 160, faceSide: 64 } as const;

/** How much a face found in the view must overlap the view's middle to be the face looked at again. */
const SAME_FACE_IOU = 0.4;
/** Faces the second look reports however unsure it is of them: the lower of the two confidences is what counts. */
const LOOK_FLOOR = 0.01;
/**
 * The least share of its confidence a face keeps when the second look does not find it: 0.42 × 0.95
 * lies under 0.4, every client's default threshold, and a real face the second look misses still
 * ranks above the model's doubtful finds (taking the second look's alone cost WIDER AP, docs/faces.md).
 */
const KEPT_SHARE = 0.42;

/** The model's confidence that the middle of a view is a face: its best face there, 0 for none. */
function confidenceInMiddle(faces: readonly Detection[]): number {
  const low = (SECOND_LOOK.side - SECOND_LOOK.faceSide) / 2;
  const middle = { x1: low, y1: low, x2: low + SECOND_LOOK.faceSide, y2: low + SECOND_LOOK.faceSide };
  const corners = ({ left, top, right, bottom }: Box) => ({ x1: left, y1: top, x2: right, y2: bottom });
  return Math.max(0, ...faces.filter((face) => intersectionOverUnion(corners(face.box), middle) >= SAME_FACE_IOU).map((face) => face.score));
}

/**
 * `faces` (found by the model in `image`) after its second look: each face it was unsure of with
 * the lower of its two confidences (at least KEPT_SHARE of its first); those then below `minScore`
 * left out; highest first.
 */
export async function secondLook(image: RgbImage, faces: readonly Detection[], minScore: number, look: LookAgain): Promise<Detection[]> {
  const seen: Detection[] = [];
  for (const face of faces) {
    const height = face.box.bottom - face.box.top;
    if (face.score < SECOND_LOOK.from || face.score >= SECOND_LOOK.below || height < SECOND_LOOK.smallestFace) {
      seen.push(face);
      continue;
    }
    const view = centredView(image, face.box, SECOND_LOOK.side, SECOND_LOOK.faceSide);
    const again = confidenceInMiddle(await look(view, LOOK_FLOOR));
    const score = Math.min(face.score, Math.max(again, KEPT_SHARE * face.score));
    if (score >= minScore) seen.push({ ...face, score });
  }
  return seen.sort((a, b) => b.score - a.score);
}
