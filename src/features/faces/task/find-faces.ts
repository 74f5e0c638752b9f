import type { StageTimings } from '../../../core/call-context.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../../core/pipeline.js';
import type { FaceRecognition } from '../gallery/face-recognition.js';
import { assembleFoundResponse, type FoundResponse } from '../../../tasks/found-response.js';
import type { ImageParameters } from '../../../tasks/image-parameters.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { Detection, Detector } from '../../../models/types.js';
import { SMALLEST_DESCRIBED_FACE } from '../../../models/face-describer.js';
import type { Box } from '../../../vision/image.js';
import { frameSmallImage, photoPixels } from '../../../vision/portrait.js';
import type { ComposedModels } from '../../../core/service-scheduler.js';
import type { Point } from '../../../vision/image.js';
import { describeFace, faceLandmarks } from './describe-face.js';
import { type NamedFace, nameFaces } from './recognize.js';
import { keepUnnamed } from './keep-unnamed.js';
import { secondLook } from './second-look.js';

/** A detection of a framed photo → in the photo's own pixels; undefined when it lies in the frame, outside the photo. */
function inPhoto(detection: Detection, photo: Box): Detection | undefined {
  const { box, landmarks } = detection;
  const left = Math.max(box.left, photo.left) - photo.left;
  const top = Math.max(box.top, photo.top) - photo.top;
  const right = Math.min(box.right, photo.right) - photo.left;
  const bottom = Math.min(box.bottom, photo.bottom) - photo.top;
  if (right <= left || bottom <= top) return undefined;
  return { ...detection, box: { left, top, right, bottom }, ...(landmarks && { landmarks: landmarks.map((point) => ({ x: point.x - photo.left, y: point.y - photo.top })) }) };
}

/**
 * The faces of one image, found the same way by every face route (detection, recognition,
 * registration, comparison, the streams), so that one image and threshold give the same faces
 * wherever they are sent: the image decoded at full resolution (recognition aligns faces on its
 * own pixels), a small image (a face crop, a thumbnail) framed first (vision/portrait.ts), the
 * service's face model through the core pipeline, with its second look at the faces it is unsure
 * of (second-look.ts). The pixels come back with the faces: `release` them.
 */
export async function detectFaces(request: Omit<AnalysisRequest, 'fullResolution' | 'review'>, timings: StageTimings): Promise<ImageAnalysis> {
  const seeing: Omit<AnalysisRequest, 'bytes'> = { ...request, fullResolution: true, review: (image, faces, look) => secondLook(image, faces, request.minScore, look) };
  const framed = await frameSmallImage(request.bytes, request.limits.maxPixels);
  if (!framed) return analyseImage({ ...seeing, bytes: request.bytes }, timings);
  const analysis = await analyseImage({ ...seeing, bytes: framed.bytes }, timings);
  const framedPixels = analysis.pixels!;
  const own = photoPixels(framedPixels, framed.photo);
  framedPixels.release();
  return {
    width: own.width,
    height: own.height,
    // The photo's pixels in memory of their own: nothing to give back.
    pixels: { ...own, format: framedPixels.format, fullWidth: own.width, fullHeight: own.height, release: () => {} },
    detections: analysis.detections.flatMap((detection) => inPhoto(detection, framed.photo) ?? []),
  };
}

/** One face as a door may ask of it: who it is, its descriptor where it was described (recognition, keeping, or `describe` asked), its five landmarks when asked. */
interface ExaminedNamedFace extends NamedFace {
  readonly landmarks?: readonly Point[];
}

export interface FaceOutcome {
  readonly analysis: ImageAnalysis;
  /** Each face found, in one record with its detection, its vote, its descriptor and its landmarks. */
  readonly response: FoundResponse<ExaminedNamedFace>;
}

/** What a door asks of the faces beyond their names (CompreFace's face plugins): every face described, matched or not; every face's five landmarks. */
interface FaceDetails {
  readonly describe?: boolean;
  readonly landmarks?: boolean;
}

/**
 * Image bytes and parameters → the faces and who they are: detectFaces, then, when `recognition`
 * is given (DeepStack's detection leaves it out), every face described by `models`
 * (describe-face.ts) and matched against the service's gallery when it has anyone, then the crops
 * and the visualization (names drawn on the faces) asked for. When the service remembers unknown
 * faces, every face recognition did not name is kept (keep-unnamed.ts). Shared by every way into this task.
 */
export async function findFaces(image: Buffer, parameters: ImageParameters, call: AnalysisCall<Detector>, recognition: FaceRecognition | undefined, models: ComposedModels, details: FaceDetails = {}): Promise<FaceOutcome> {
  const { service, scheduler, limits, signal, turn, context } = call;
  const [matcher, remembers] = recognition ? await Promise.all([recognition.matcher(service.id), recognition.remembersUnknown(service.id)]) : [undefined, false];
  // Recognition describes every face whether or not anyone is registered: a call costs the same on
  // a new service as with a full gallery, so capacity planned on the first day holds (docs/performance.md).
  const describes = recognition !== undefined || details.describe;
  const recognizer = describes ? { matcher, describe: describeFace(models, call), smallestFace: recognition?.smallestFace ?? SMALLEST_DESCRIBED_FACE } : undefined;
  const analysis = await detectFaces({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold }, context.timings);
  try {
    const named = await nameFaces(analysis, recognizer, context.timings);
    if (recognition && remembers) await keepUnnamed(analysis, named, recognition, call);
    const landmarksOf = faceLandmarks(models, call);
    const examined: ExaminedNamedFace[] = details.landmarks ? await Promise.all(named.map(async (face) => ({ ...face, landmarks: await landmarksOf(analysis.pixels!, face.detection) }))) : named;
    const encodeStarted = performance.now();
    const response = await assembleFoundResponse(analysis, examined, parameters);
    context.timings.encode = performance.now() - encodeStarted;
    return { analysis: { ...analysis, pixels: undefined }, response };
  } finally {
    analysis.pixels?.release();
  }
}
