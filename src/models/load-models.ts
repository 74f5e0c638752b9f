import path from 'node:path';
import { ModelRegistry } from './registry.js';
import { loadOnnxDetector, type OnnxDetectorSettings } from './runtimes/onnx-detector.js';
import { loadDetectorInWorker, moduleUrl } from './runtimes/worker-detector.js';
import type { Detector } from './types.js';

/**
 * The detector that arrives with `npm ci`: CenterNet (MobileNetV3, COCO-80) from the
 * `@vladmandic/human` package, run by TF.js in a worker thread.
 */
export function loadEmbeddedDetector(logger: (message: string) => void): Promise<Detector> {
  return loadDetectorInWorker({ moduleUrl: moduleUrl('./runtimes/tfjs/centernet', import.meta.url), loaderName: 'loadCenterNet' }, logger);
}

/** Loads each configured model file, or the embedded detector when none is configured. */
export async function loadModels(
  modelPaths: readonly string[],
  settings: OnnxDetectorSettings,
  logger: (message: string) => void,
): Promise<ModelRegistry> {
  if (modelPaths.length === 0) {
    logger(
      'DETECTD_MODEL is not set: serving the embedded CenterNet (TF.js, AP 32.8, ~190 ms per image here). ' +
        'An ONNX YOLO model is faster and more accurate, e.g. DETECTD_MODEL=../shared/models/yolo26n-640-int8.onnx (AP 43.6, 58 ms); see README "Models".',
    );
    return new ModelRegistry([await loadEmbeddedDetector(logger)]);
  }
  const detectors: Detector[] = [];
  for (const modelPath of modelPaths) {
    if (path.extname(modelPath).toLowerCase() !== '.onnx') throw new Error(`${modelPath}: expected an .onnx model file`);
    detectors.push(await loadOnnxDetector(modelPath, settings));
  }
  return new ModelRegistry(detectors);
}
