import type { RgbImage } from '../vision/image.js';
import type { DecodeOptions, DetectionResult, Detector } from './types.js';

/**
 * One image through all stages on input buffer 0, timed, with no scheduling: for tools and tests
 * that own the detector alone. The service goes through the model's scheduler instead.
 */
export async function detectOnce(detector: Detector, image: RgbImage, options: DecodeOptions): Promise<DetectionResult> {
  const started = performance.now();
  const prepared = detector.prepare(image, 0);
  const prepareDone = performance.now();
  const output = await detector.run(prepared, true);
  const runDone = performance.now();
  const detections = detector.decode(output, prepared, options);
  return { detections, timings: { preprocess: prepareDone - started, inference: runDone - prepareDone, postprocess: performance.now() - runDone } };
}
