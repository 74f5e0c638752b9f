import type { RgbImage } from '../vision/image.js';
import type { PostprocessOptions, DetectionResult, Detector } from './types.js';

/**
 * One image through all stages on input buffer 0, timed, with no scheduling: for tools and tests
 * that own the detector alone. The service goes through the model's scheduler instead.
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
