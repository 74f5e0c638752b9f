import type { ObjectFamily } from '../../families/family.js';
import { toImageDetections } from '../../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../../types.js';
import { letterboxStages } from './onnx-letterbox-stages.js';
import type { FileDetector } from '../../model-repository.js';
import { detectionLimit, type OnnxFamilyLoader } from './onnx-served-model.js';

/**
 * A licence-plate detector (families/plates/plate-detector.ts): labels ['plate'], its input's width and height
 * read from the model (or its configuration's `inputSize`), letterboxed like every box detector.
 */
export const plateDetectorLoader: OnnxFamilyLoader<ObjectFamily, FileDetector> = {
  async load({ description, opened, served }, family) {
    const [, , height, width] = opened.signature.inputShape;
    const inputSize = description.inputSize !== undefined ? { width: description.inputSize, height: description.inputSize } : typeof width === 'number' && typeof height === 'number' ? { width, height } : undefined;
    if (inputSize === undefined) throw new Error(`its input is [${opened.signature.inputShape.join(', ')}]; a plate detector's is fixed (or set "inputSize" in its configuration)`);
    const letterbox = family.letterbox(inputSize);
    const dims = [1, 3, inputSize.height, inputSize.width];
    await opened.warmUp(letterbox, dims);

    const { preprocess, inference } = letterboxStages(opened, letterbox, dims);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const candidates = family.readCandidates(output.tensors[0], inputSize, options.minScore);
      return toImageDetections(candidates, input.transform, input.image, { ...options, maxDetections: detectionLimit(options, description), nmsIou: undefined });
    };
    return {
      ...served,
      role: 'detector',
      labels: ['plate'],
      parents: ['vehicle'],
      inputSize,
      preprocess,
      inference,
      postprocess,
      labelSource: 'family',
    };
  },
};
