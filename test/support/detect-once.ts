import type { DetectionResult, Detector, PostprocessOptions } from '../../src/models/types.js';
import type { ModelScheduler, SchedulerResult } from '../../src/scheduler/model-scheduler.js';
import type { RgbImage } from '../../src/vision/image.js';

/**
 * One image through all stages on input buffer 0, timed, with no scheduling: for tests that own
 * the detector alone. The service goes through the model's scheduler instead.
 */
export async function detectOnce(detector: Detector, image: RgbImage, options: PostprocessOptions): Promise<DetectionResult> {
  const started = performance.now();
  const input = detector.preprocess(image, 0);
  const preprocessDone = performance.now();
  const output = await detector.inference(input, true);
  const inferenceDone = performance.now();
  const detections = detector.postprocess(output, input, options);
  return { detections, timings: { preprocess: preprocessDone - started, inference: inferenceDone - preprocessDone, postprocess: performance.now() - inferenceDone } };
}

/** One image through the scheduler's request lane as the core pipeline drives it: acquire → detect → release. */
export async function detectScheduled(scheduler: ModelScheduler, image: RgbImage, options: PostprocessOptions, signal: AbortSignal): Promise<SchedulerResult> {
  const turn = await scheduler.acquire('request', signal);
  try {
    return await turn.detect(image, options, signal);
  } finally {
    turn.release();
  }
}
