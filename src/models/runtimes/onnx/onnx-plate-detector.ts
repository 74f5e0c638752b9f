import type { ObjectFamily } from '../../families/family.js';
import { readModelDescription, settingsOf } from '../../model-description.js';
import type { FileDetector, InferenceSettings } from '../../model-repository.js';
import { toImageDetections } from '../../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../../types.js';
import { letterboxStages } from './onnx-letterbox-stages.js';
import { OnnxSessionPool } from './onnx-session-pool.js';
import { detectionLimit, loadOrRefuse, servedOnnxModel } from './onnx-served-model.js';

/**
 * Loads an ONNX licence-plate detector of `family` (families/plate-detector.ts): a detector of kind
 * `plates`, labels ['plate'], its sessions in worker threads like every ONNX detector's, its square
 * input side read from the model. Every reason not to serve it throws ModelRefused.
 */
export async function loadOnnxPlateDetector(modelPath: string, family: ObjectFamily, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector> {
  return loadOrRefuse(modelPath, async (keep) => {
    const description = await readModelDescription(modelPath);
    const settings = settingsOf(description, defaults);
    const opened = keep(await OnnxSessionPool.open(modelPath, settings, logger));
    const [, , height, width] = opened.signature.inputShape;
    const side = description.inputSize ?? (typeof width === 'number' && width === height ? width : undefined);
    if (side === undefined) throw new Error(`its input is [${opened.signature.inputShape.join(', ')}]; a plate detector's is a fixed square (or set "inputSize" in its configuration)`);
    const letterbox = family.letterbox(side);
    const dims = [1, 3, side, side];
    await opened.warmUp(letterbox, dims);

    const { preprocess, inference } = letterboxStages(opened, letterbox, dims);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const candidates = family.readCandidates(output.tensors[0], side, options.minScore);
      return toImageDetections(candidates, input.transform, input.image, { ...options, maxDetections: detectionLimit(options, description), nmsIou: undefined });
    };
    return {
      ...servedOnnxModel(modelPath, description, settings, opened),
      // What it finds is its configuration's word, `plates` unless it says otherwise.
      kind: description.kind ?? 'plates',
      family: family.name,
      labels: ['plate'],
      parents: ['vehicle'],
      inputSize: { width: side, height: side },
      preprocess,
      inference,
      postprocess,
      labelSource: 'family',
    };
  });
}
