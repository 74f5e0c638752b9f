import { plateDetector } from './families/plates/plate-detector.js';
import { PLATE_READER_FAMILY } from './families/plates/plate-reader.js';
import type { FileDetector, InferenceSettings } from './model-repository.js';
import { MODEL_KINDS } from './model-roles.js';
import { type ModelStep, serves, stepName } from './model-step.js';
import type { RoleModel } from './role-models.js';
import { ModelRefused } from './model-refused.js';
import type { PlateReader } from './plates.js';
import { loadOnnxModel } from './runtimes/onnx/onnx-detector.js';

/** The two models of licence-plate recognition, as tools and tests load them outside a server: one finds the plates, the other reads them. */
export interface PlateModels {
  /** Kind `plates`: boxes labelled 'plate'. */
  readonly detector: FileDetector;
  readonly reader: PlateReader;
}

/** Loads a model file of `family` (unless its configuration says otherwise) that must serve `step`; a refusal throws ModelRefused. */
async function loadModelOf<Model extends RoleModel>(modelPath: string, family: string, step: ModelStep<Model>, defaults: InferenceSettings, logger?: (message: string) => void): Promise<Model> {
  const model = await loadOnnxModel(modelPath, defaults, logger, { family });
  if (serves(model, step)) return model;
  await model.dispose();
  throw new ModelRefused(modelPath, `it is a ${model.role} of ${model.kind}, not a ${stepName(step)}`);
}

const PLATE_DETECTOR: ModelStep<FileDetector> = { role: 'detector', kind: MODEL_KINDS.plates };
const PLATE_READER: ModelStep<PlateReader> = { role: 'reader', kind: MODEL_KINDS.plateText };

/** Loads the plate detector (an open-image-models end-to-end export); a refusal throws ModelRefused. */
export const loadPlateDetector = (modelPath: string, defaults: InferenceSettings, logger?: (message: string) => void) =>
  loadModelOf(modelPath, plateDetector.name, PLATE_DETECTOR, defaults, logger);

/** Loads the plate reader (fast-plate-ocr, its configuration and `_plate_config.yaml` beside it); a refusal throws ModelRefused. */
export const loadPlateReader = (modelPath: string, defaults: InferenceSettings, logger?: (message: string) => void) =>
  loadModelOf(modelPath, PLATE_READER_FAMILY, PLATE_READER, defaults, logger);

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
