import { MODEL_KINDS } from '../../model-roles.js';
import type { FileDetector } from '../../model-repository.js';
import { faceDetectorLoader } from '../../runtimes/onnx/onnx-face-detector.js';
import type { Family } from '../family.js';
import type { FaceFamily } from './face-family.js';

/** A family of face detectors, read by `reader` and recognised by its output names: boxes with calibrated confidences, five landmarks where it gives them. */
export const faceBoxFamily = (reader: FaceFamily): Family<FileDetector> => ({
  name: reader.name,
  role: 'detector',
  kind: MODEL_KINDS.faces,
  recognises: (outputs) => reader.matchesOutputs(outputs),
  defaults: (defaults) => faceDetectorLoader.defaults!(defaults, reader),
  load: (model) => faceDetectorLoader.load(model, reader),
});
