import type { StageTimings } from '../../core/call-context.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../core/pipeline.js';
import type { Service } from '../../core/service.js';
import type { FaceRecognition } from '../face-recognition.js';
import { assembleFoundResponse, type FoundResponse } from '../found-response.js';
import type { ImageParameters } from '../image-parameters.js';
import type { Detection } from '../../models/types.js';
import type { Box } from '../../vision/image.js';
import { ImageDecodeError } from '../../vision/decode.js';
import { framePortrait, isSmallImage, photoPixels } from '../../vision/portrait.js';
import { DetectdError } from '../../core/errors.js';
import { nameFaces } from './recognize.js';

/** A detection of a framed photo → in the photo's own pixels; undefined when it lies in the frame, outside the photo. */
function inPhoto(detection: Detection, photo: Box): Detection | undefined {
  const { box } = detection;
  const left = Math.max(box.left, photo.left) - photo.left;
  const top = Math.max(box.top, photo.top) - photo.top;
  const right = Math.min(box.right, photo.right) - photo.left;
  const bottom = Math.min(box.bottom, photo.bottom) - photo.top;
  return right > left && bottom > top ? { ...detection, box: { left, top, right, bottom } } : undefined;
}

/**
 * The core pipeline on a photo framed in a grey border (vision/portrait.ts), where a detector
 * trained on scenes finds the face that fills a portrait or a crop; what is found is given back in
 * the photo's own pixels (at most 1280 px a side: a larger photo is brought down first, by
 * `scale`), with those pixels.
 */
export async function analyseFramed(request: AnalysisRequest, timings: StageTimings): Promise<ImageAnalysis & { readonly scale: number }> {
  const framed = await framePortrait(request.bytes, request.limits.maxPixels).catch((error: unknown) => {
    throw error instanceof ImageDecodeError ? new DetectdError(error.failure, error.message) : error;
  });
  const analysis = await analyseImage({ ...request, bytes: framed.bytes, fullResolution: true }, timings);
  const { photo } = framed;
  const framedPixels = analysis.pixels!;
  const own = photoPixels(framedPixels, photo);
  framedPixels.release();
  return {
    width: own.width,
    height: own.height,
    // The photo's pixels in memory of their own: nothing to give back.
    pixels: { ...own, format: framedPixels.format, fullWidth: own.width, fullHeight: own.height, release: () => {} },
    detections: analysis.detections.flatMap((detection) => inPhoto(detection, photo) ?? []),
    scale: framed.scale,
  };
}

/** The core pipeline, a small image (a face crop, a thumbnail) framed first (`analyseFramed`). */
async function analyseSmallFramed(request: AnalysisRequest, timings: StageTimings): Promise<ImageAnalysis> {
  return (await isSmallImage(request.bytes)) ? analyseFramed(request, timings) : analyseImage(request, timings);
}

export interface FaceOutcome {
  readonly analysis: ImageAnalysis;
  /** Index-aligned with `analysis.detections`. */
  readonly response: FoundResponse;
}

/**
 * Image bytes and parameters → the faces and who they are: the core pipeline on the service's face
 * model, recognition against the service's gallery when it has anyone (and `recognition` is given:
 * DeepStack's detection leaves it out), then the crops and the visualization (names drawn on the
 * faces) asked for. Shared by every way into this task.
 */
export async function findFaces(
  request: Omit<AnalysisRequest, 'minScore' | 'fullResolution'>,
  parameters: ImageParameters,
  service: Service,
  recognition: FaceRecognition | undefined,
  timings: StageTimings,
): Promise<FaceOutcome> {
  const matcher = await recognition?.matcher(service.id);
  const recognizer = recognition && matcher && { matcher, describe: recognition.describe.bind(recognition) };
  const fullResolution = recognizer !== undefined || parameters.outputCroppedImage || parameters.outputVisualizedImage;
  const analysis = await analyseSmallFramed({ ...request, minScore: parameters.confidenceThreshold, fullResolution }, timings);
  try {
    const names = await nameFaces(analysis, recognizer, timings);
    const encodeStarted = performance.now();
    const response = await assembleFoundResponse(analysis, analysis.detections, names, parameters);
    timings.encode = performance.now() - encodeStarted;
    return { analysis: { ...analysis, pixels: undefined }, response };
  } finally {
    analysis.pixels?.release();
  }
}
