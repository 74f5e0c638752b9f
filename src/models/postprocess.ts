import type { Candidate } from './families/family.js';
import { nonMaxSuppression } from './nms.js';
import type { PostprocessOptions, Detection, InputTransform } from './types.js';

export interface PostprocessSettings extends PostprocessOptions {
  /** IoU above which same-class candidates are merged; undefined when the model already removed duplicates. */
  readonly nmsIou: number | undefined;
}

/**
 * Candidates in network-input pixels → detections in image pixels, the same for every runtime:
 * merge (NMS) or sort, cap, map back through the input transform (landmarks too), clip boxes to the image.
 */
export function toImageDetections(
  candidates: Candidate[],
  transform: InputTransform,
  image: { readonly width: number; readonly height: number },
  settings: PostprocessSettings,
): Detection[] {
  const kept =
    settings.nmsIou === undefined
      ? candidates.sort((a, b) => b.score - a.score).slice(0, settings.maxDetections)
      : nonMaxSuppression(candidates, settings.nmsIou, settings.maxDetections);
  const { scaleX, scaleY, padLeft, padTop } = transform;
  const clip = (value: number, max: number) => Math.min(max, Math.max(0, value));
  const detections: Detection[] = [];
  for (const candidate of kept) {
    const box = {
      left: clip((candidate.x1 - padLeft) / scaleX, image.width),
      top: clip((candidate.y1 - padTop) / scaleY, image.height),
      right: clip((candidate.x2 - padLeft) / scaleX, image.width),
      bottom: clip((candidate.y2 - padTop) / scaleY, image.height),
    };
    if (box.right <= box.left || box.bottom <= box.top) continue;
    const detection = { classIndex: candidate.classIndex, score: candidate.score, box };
    const points = candidate.landmarks;
    if (!points) {
      detections.push(detection);
      continue;
    }
    // Landmarks are not clipped: a face cut by the image's edge still has its eyes where they are.
    const landmarks = [];
    for (let k = 0; k < points.length; k += 2) landmarks.push({ x: (points[k] - padLeft) / scaleX, y: (points[k + 1] - padTop) / scaleY });
    detections.push({ ...detection, landmarks });
  }
  return detections;
}
