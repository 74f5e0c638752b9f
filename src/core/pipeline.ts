import { InferenceWorkerLost } from '../models/inference-worker-lost.js';
import { ModelFileUnavailable } from '../models/model-file-unavailable.js';
import type { Detection, Detector, DetectorTimings } from '../models/types.js';
import { type ModelScheduler, type ModelTurn, QueueFullError, WaitAbortedError } from '../scheduler/model-scheduler.js';
import { type DecodedImage, decodeImage, ImageDecodeError } from '../vision/decode.js';
import type { Box, RgbImage } from '../vision/image.js';
import { regionOf } from '../vision/region.js';
import type { StageTimings } from './call-context.js';
import { DetectdError } from './errors.js';

export interface AnalysisLimits {
  /** Most pixels (width × height) an image may have, checked from its header before decoding. */
  readonly maxPixels: number;
  readonly maxDetections: number;
  /** The deadline behind the caller's signal, for the message of `deadline_exceeded`. */
  readonly deadlineMs: number;
}

export interface AnalysisRequest {
  readonly bytes: Buffer;
  /** A detector's: the pipeline runs its stages. */
  readonly scheduler: ModelScheduler<Detector>;
  readonly minScore: number;
  readonly limits: AnalysisLimits;
  /** Ends every wait for the model: the deadline, a caller that hung up, a stream that closed. */
  readonly signal: AbortSignal;
  /**
   * The image's full-resolution pixels are needed (crops, a visualization): decoded once, at full
   * size, and the model letterboxes from them. Otherwise a large JPEG is decoded only as large
   * as the model's input needs, several times faster.
   */
  readonly fullResolution: boolean;
  /** A turn the caller already holds (a stream takes its turn before it picks its newest frame); otherwise one is waited for on the request lane. */
  readonly turn?: ModelTurn;
  /**
   * Regions of the image (in its pixels) the model also looks at, each as an input of its own at
   * full resolution, in the same turn after the whole image: where what is sought may be too
   * small once the whole image is shrunk to the model's input. Needs `fullResolution`.
   */
  readonly windows?: (width: number, height: number) => readonly Box[];
  /**
   * A second look at what the model found, in the same turn (the face task's: features/faces/task/second-look.ts):
   * given the image and the detections, it may run the model on images of its own (`look`) and
   * answers the detections kept, highest score first. Needs `fullResolution`.
   */
  readonly review?: (image: RgbImage, detections: readonly Detection[], look: LookAgain) => Promise<Detection[]>;
}

/** The model run again in the call's turn, on another image (a view a review made): its detections down to `minScore`. */
export type LookAgain = (view: RgbImage, minScore: number) => Promise<readonly Detection[]>;

export interface ImageAnalysis {
  /** Size of the image as a person sees it (EXIF orientation applied): the detections' pixel space. */
  readonly width: number;
  readonly height: number;
  /** The image at full resolution, when the request asked for `fullResolution`: `release` it once done. */
  readonly pixels?: DecodedImage;
  /** Highest score first, boxes in the full image's pixels. */
  readonly detections: readonly Detection[];
  /** What each of the request's `windows` found, in their order (none without): highest score first, boxes in the full image's pixels. */
  readonly windows?: readonly { readonly box: Box; readonly detections: readonly Detection[] }[];
}

/** Detections in the pixels of an image decoded scaled down → in the full image's pixels. */
function toFullImage(detections: readonly Detection[], scaleX: number, scaleY: number): Detection[] {
  return detections.map(({ box, landmarks, ...detection }) => ({
    ...detection,
    box: { left: box.left * scaleX, right: box.right * scaleX, top: box.top * scaleY, bottom: box.bottom * scaleY },
    ...(landmarks && { landmarks: landmarks.map((point) => ({ x: point.x * scaleX, y: point.y * scaleY })) }),
  }));
}

/** A further run's stage milliseconds and wait, added to the call's. */
function addRun(timings: StageTimings, run: { readonly timings: DetectorTimings; readonly runWaitMs: number }): void {
  for (const stage of ['preprocess', 'inference', 'postprocess'] as const) timings[stage] = (timings[stage] ?? 0) + run.timings[stage];
  timings.wait = (timings.wait ?? 0) + run.runWaitMs;
}

/** `box` moved right by `dx` and down by `dy`. */
const shifted = (box: Box, dx: number, dy: number): Box => ({ left: box.left + dx, top: box.top + dy, right: box.right + dx, bottom: box.bottom + dy });

/** Scheduler refusals and a lost inference worker → the caller's error codes. */
export function schedulingFailure(error: unknown, limits: AnalysisLimits): unknown {
  // Not retried here: the run may be what stopped the worker, and the caller decides whether to try again.
  if (error instanceof InferenceWorkerLost) return new DetectdError('model_unavailable', `${error.message}; retry`, 1);
  if (error instanceof ModelFileUnavailable) return new DetectdError('model_unavailable', error.message, error.retrySeconds);
  if (error instanceof QueueFullError) return new DetectdError('overloaded', `the server is busy (${error.maxAdmitted} requests in flight for this model); retry shortly`, 1);
  if (error instanceof WaitAbortedError) return new DetectdError('deadline_exceeded', `no model capacity within the ${limits.deadlineMs} ms deadline`, 1);
  return error;
}

/**
 * The core pipeline, the same for every front door: bytes → decoded image → the model's
 * scheduler → detections, with each stage's milliseconds written into `timings`. Failures are
 * DetectdErrors; what a result looks like on the wire is the task's and the transport's business.
 */
export async function analyseImage(request: AnalysisRequest, timings: StageTimings): Promise<ImageAnalysis> {
  const { scheduler, limits, signal } = request;
  const decodeStarted = performance.now();
  const { width, height } = scheduler.model.inputSize;
  const scale = request.fullResolution ? {} : { fitInto: Math.max(width, height) };
  const image = await decodeImage(request.bytes, { maxPixels: limits.maxPixels }, scale).catch((error: unknown) => {
    throw error instanceof ImageDecodeError ? new DetectdError(error.failure, error.message) : error;
  });
  timings.decode = performance.now() - decodeStarted;

  const options = { minScore: request.minScore, maxDetections: limits.maxDetections };
  // Full-resolution pixels go to the caller, who releases them; otherwise they are done with here.
  let handedOver = false;
  try {
    const waitStarted = performance.now();
    const turn = request.turn ?? (await scheduler.acquire('request', signal));
    timings.wait = performance.now() - waitStarted;
    try {
      const result = await turn.detect(image, options, signal);
      Object.assign(timings, result.timings);
      timings.wait += result.runWaitMs;
      const scaleX = image.fullWidth / image.width;
      const scaleY = image.fullHeight / image.height;
      const found = scaleX === 1 && scaleY === 1 ? result.detections : toFullImage(result.detections, scaleX, scaleY);
      const look: LookAgain = async (view, minScore) => {
        const seen = await turn.detect(view, { minScore, maxDetections: limits.maxDetections }, signal);
        addRun(timings, seen);
        return seen.detections;
      };
      const detections = request.review ? await request.review(image, found, look) : found;
      const windows = [];
      for (const box of request.windows?.(image.width, image.height) ?? []) {
        const region = regionOf(image, box);
        try {
          const inWindow = await turn.detect(region, options, signal);
          addRun(timings, inWindow);
          windows.push({ box, detections: inWindow.detections.map((detection) => ({ ...detection, box: shifted(detection.box, region.left, region.top) })) });
        } finally {
          region.release();
        }
      }
      handedOver = request.fullResolution;
      return { width: image.fullWidth, height: image.fullHeight, pixels: request.fullResolution ? image : undefined, detections, windows };
    } finally {
      if (!request.turn) turn.release();
    }
  } catch (error) {
    throw schedulingFailure(error, limits);
  } finally {
    if (!handedOver) image.release();
  }
}

/** Admits a request to its model's request lane (or 503 `overloaded`); call the result when it is done. */
export function admitRequest(scheduler: ModelScheduler, limits: AnalysisLimits): () => void {
  try {
    return scheduler.admit();
  } catch (error) {
    throw schedulingFailure(error, limits);
  }
}
