import { plateDetector } from './families/plate-detector.js';
import type { FileDetector, InferenceSettings } from './model-repository.js';
import type { PlateReader } from './plates.js';
import { loadOnnxPlateDetector } from './runtimes/onnx/onnx-plate-detector.js';
import { loadOnnxPlateReader } from './runtimes/onnx/onnx-plate-reader.js';

/** The two models of licence-plate recognition: one finds the plates, the other reads them. */
export interface PlateModels {
  /** Kind `plates`: boxes labelled 'plate'. */
  readonly detector: FileDetector;
  readonly reader: PlateReader;
}

/** Loads the plate detector (an open-image-models end-to-end export) from a model file; a refusal throws ModelRefused. */
export const loadPlateDetector = (modelPath: string, defaults: InferenceSettings, logger: (message: string) => void = () => {}) =>
  loadOnnxPlateDetector(modelPath, plateDetector, defaults, logger);

/** Loads the plate reader (fast-plate-ocr, its `_plate_config.yaml` beside it) from a model file; a refusal throws ModelRefused. */
export const loadPlateReader = (modelPath: string, defaults: InferenceSettings, logger: (message: string) => void = () => {}) =>
  loadOnnxPlateReader(modelPath, defaults, logger);

/** Both models; if the second cannot be served, the first is let go before the refusal is thrown. */
export async function loadPlateModels(paths: { readonly detector: string; readonly reader: string }, defaults: InferenceSettings, logger?: (message: string) => void): Promise<PlateModels> {
  const detector = await loadPlateDetector(paths.detector, defaults, logger);
  try {
    return { detector, reader: await loadPlateReader(paths.reader, defaults, logger) };
  } catch (error) {
    await detector.dispose();
    throw error;
  }
}
