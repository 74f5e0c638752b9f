import path from 'node:path';
import type { LetterboxSpec } from '../../../vision/letterbox.js';
import type { ObjectFamily } from '../../families/family.js';
import { ultralytics } from '../../families/boxes/ultralytics.js';
import { type FileDetector, sidecarPath } from '../../model-repository.js';
import { toImageDetections } from '../../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../../types.js';
import { chooseCategories, chooseInputSize, readModelFacts } from './model-facts.js';
import { letterboxStages } from './onnx-letterbox-stages.js';
import { detectionLimit, type OnnxFamilyLoader } from './onnx-served-model.js';

/** The reader of `readers` whose output shape this is: a plain COCO detector that names no family. */
function readerOfShape(modelPath: string, readers: readonly ObjectFamily[], outputDims: readonly number[]): ObjectFamily {
  const found = readers.find((reader) => reader.matchesOutput(outputDims));
  if (found) return found;
  throw new Error(`cannot tell the family of a model with output [${outputDims.join(', ')}]; name one of ${readers.map((reader) => reader.name).join(', ')} as "family" in ${path.basename(sidecarPath(modelPath))}`);
}

/**
 * Boxes of classes (COCO-style object detectors): the sessions letterbox each image into their own
 * input tensor and run it. The model's configuration file overrides what its metadata says (labels,
 * input size); a model whose metadata says it is no detector is refused. Its reader is the
 * family's own, or, for a model that declares none, the first of `shapes` whose output shape the warm-up shows.
 */
export const objectDetectorLoader: OnnxFamilyLoader<ObjectFamily | { readonly shapes: readonly ObjectFamily[] }, FileDetector> = {
  // A model whose metadata says it is no detector is refused before its sessions are opened.
  inspect: async (modelPath) => void (await readModelFacts(modelPath)),
  async load({ modelPath, opened, settings, served }, declared) {
    const facts = await readModelFacts(modelPath);
    const { description } = facts;
    const inputSize = chooseInputSize(opened.signature.inputShape, facts);
    const dims = [1, 3, inputSize.height, inputSize.width];
    // A warm-up run of every session both pays ORT's first-run cost at start-up and shows the output
    // shape, hence the family; any letterbox fills a tensor of the right shape for it.
    const outputDims = (await opened.warmUp(ultralytics.letterbox(inputSize), dims)).tensors[0].dims;
    const family = 'shapes' in declared ? readerOfShape(modelPath, declared.shapes, outputDims) : declared;
    const categories = chooseCategories(modelPath, facts, family.classCount(outputDims), outputDims);
    const letterbox: LetterboxSpec = family.letterbox(inputSize);

    const { preprocess, inference } = letterboxStages(opened, letterbox, dims);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const candidates = family.readCandidates(output.tensors[0], inputSize, options.minScore);
      const maxDetections = detectionLimit(options, description);
      return toImageDetections(candidates, input.transform, input.image, { ...options, maxDetections, nmsIou: family.needsNms ? settings.nmsIou : undefined });
    };

    return {
      ...served,
      role: 'detector',
      family: family.name,
      labels: categories.labels,
      parents: categories.parents,
      inputSize,
      preprocess,
      inference,
      postprocess,
      labelSource: categories.source,
    };
  },
};
