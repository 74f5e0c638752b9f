import { MODEL_KINDS } from '../../model-roles.js';
import type { FileDetector } from '../../model-repository.js';
import type { PlateReader } from '../../plates.js';
import { plateDetectorLoader } from '../../runtimes/onnx/onnx-plate-detector.js';
import { plateReaderLoader } from '../../runtimes/onnx/onnx-plate-reader.js';
import type { Family } from '../family.js';
import { plateDetector } from './plate-detector.js';
import { PLATE_READER_FAMILY } from './plate-reader.js';

/** open-image-models' plate detectors: only a configuration naming the family makes a model one (its shape says nothing). */
export const plateBoxes: Family<FileDetector> = {
  name: plateDetector.name,
  role: 'detector',
  kind: MODEL_KINDS.plates,
  load: (model) => plateDetectorLoader.load(model, plateDetector),
};

/** fast-plate-ocr's readers, with their `_plate_config.yaml` beside them. */
export const fastPlateOcr: Family<PlateReader> = {
  name: PLATE_READER_FAMILY,
  role: 'reader',
  kind: MODEL_KINDS.plateText,
  load: (model) => plateReaderLoader.load(model),
};
