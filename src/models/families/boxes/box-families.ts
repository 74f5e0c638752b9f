import { MODEL_KINDS } from '../../model-roles.js';
import type { FileDetector } from '../../model-repository.js';
import { objectDetectorLoader } from '../../runtimes/onnx/onnx-object-detector.js';
import type { Family, ObjectFamily } from '../family.js';

/** A family of COCO-style object detectors, read by `reader`: letterboxed input, boxes of classes. */
export const boxFamily = (reader: ObjectFamily): Family<FileDetector> => ({
  name: reader.name,
  role: 'detector',
  kind: MODEL_KINDS.objects,
  inspect: objectDetectorLoader.inspect,
  load: (model) => objectDetectorLoader.load(model, reader),
});

/**
 * The fallback for a model that names no family and whose outputs no family recognises: a plain
 * COCO detector, read by the first of `readers` whose output shape its warm-up run shows.
 */
export const boxesByOutputShape = (readers: readonly ObjectFamily[]): Family<FileDetector> => ({
  name: '',
  role: 'detector',
  kind: MODEL_KINDS.objects,
  inspect: objectDetectorLoader.inspect,
  load: (model) => objectDetectorLoader.load(model, { shapes: readers }),
});
