import type { ImageAnalysis } from '../../../core/pipeline.js';
import type { FaceRecognition } from '../gallery/face-recognition.js';
import type { UnnamedFace } from '../gallery/unknown-people.js';
import { encodeCrop } from '../../../vision/encode.js';
import type { Box } from '../../../vision/image.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { NamedFace } from './recognize.js';

/** A thumbnail shows the face with this much of its box's size around it on each side: hair and chin tell a person apart at a glance. */
const THUMBNAIL_MARGIN = 0.2;

function withMargin(box: Box): Box {
  const dx = (box.right - box.left) * THUMBNAIL_MARGIN;
  const dy = (box.bottom - box.top) * THUMBNAIL_MARGIN;
  return { left: box.left - dx, top: box.top - dy, right: box.right + dx, bottom: box.bottom + dy };
}

/**
 * The faces of one image that were described and named no one (the service remembers unknown
 * faces) → kept by recognition, with the call's `frame_id`/`source_id`. A face too small to describe
 * is not kept: it could never be grouped or named. Keeping never fails the call (FaceRecognition.keepUnknown).
 */
export async function keepUnnamed(analysis: ImageAnalysis, named: readonly NamedFace[], recognition: FaceRecognition, call: AnalysisCall): Promise<void> {
  const pixels = analysis.pixels;
  if (!pixels) throw new Error('keeping faces needs the image decoded at full resolution');
  const faces: UnnamedFace[] = [];
  for (const { detection, descriptor, naming } of named) {
    if (!descriptor || naming.similarity !== undefined) continue;
    const crop = Buffer.from(await encodeCrop(pixels, withMargin(detection.box)), 'base64');
    faces.push({ descriptor, crop, height: detection.box.bottom - detection.box.top, confidence: detection.score });
  }
  await recognition.keepUnknown(call.service.id, faces, call.labels ?? {});
}
