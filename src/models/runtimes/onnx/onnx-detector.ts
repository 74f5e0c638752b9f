import path from 'node:path';
import type { LetterboxSpec } from '../../../vision/letterbox.js';
import type { ObjectFamily } from '../../families/family.js';
import { FACE_FAMILIES, faceFamilyByName, faceFamilyForOutputs, familyByName, familyForOutput, OBJECT_FAMILIES } from '../../families/index.js';
import { ultralytics } from '../../families/ultralytics.js';
import { readModelDescription, settingsOf, sidecarPath } from '../../model-description.js';
import type { FileDetector, Runtime, InferenceSettings } from '../../model-repository.js';
import { chooseCategories, chooseInputSize, readModelFacts, Refusal } from './model-facts.js';
import { readOnnxFile } from './onnx-file.js';
import { toImageDetections } from '../../postprocess.js';
import type { PostprocessOptions, Detection, PreprocessedInput, RawOutput } from '../../types.js';
import { plateDetector } from '../../families/plate-detector.js';
import { PLATE_READER_FAMILY } from '../../families/plate-reader.js';
import { loadOnnxFaceDetector } from './onnx-face-detector.js';
import { loadOnnxPlateDetector } from './onnx-plate-detector.js';
import { loadOnnxPlateReader } from './onnx-plate-reader.js';
import { letterboxStages } from './onnx-letterbox-stages.js';
import { EXECUTION_DEVICE } from './onnx-session-options.js';
import { OnnxSessionPool } from './onnx-session-pool.js';
import { detectionLimit, loadOrRefuse, servedOnnxModel } from './onnx-served-model.js';


function chooseFamily(modelPath: string, named: string | undefined, outputDims: readonly number[]): ObjectFamily {
  const found = named ? familyByName(named) : familyForOutput(outputDims);
  if (found) return found;
  const objectFamilies = OBJECT_FAMILIES.map((entry) => entry.name).join(', ');
  throw new Refusal(
    named
      ? `unknown model family "${named}" (known: ${[...OBJECT_FAMILIES, ...FACE_FAMILIES].map((entry) => entry.name).join(', ')})`
      : `cannot tell the family of a model with output [${outputDims.join(', ')}]; name one of ${objectFamilies} as "family" in ${path.basename(sidecarPath(modelPath))}`,
  );
}

/**
 * Loads an ONNX detector: its sessions in worker threads (onnx-session-pool.ts), which letterbox
 * each image into their own input tensor and run it. It holds `concurrency + 1` images at once, so
 * that the next one is decoded while the current ones run; who goes when is the scheduler's decision. The model's
 * configuration file overrides `defaults` and what the model file's metadata says; every reason
 * not to serve the model throws ModelRefused. An inference worker that stops is restarted (told to `logger`).
 */
export async function loadOnnxDetector(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void = () => {}): Promise<FileDetector> {
  return loadOrRefuse(modelPath, async (keep) => {
    const facts = await readModelFacts(modelPath);
    const { description } = facts;
    const settings = settingsOf(description, defaults);
    const opened = keep(await OnnxSessionPool.open(modelPath, settings, logger));
    const inputSize = chooseInputSize(modelPath, opened.signature.inputShape, facts);
    const dims = [1, 3, inputSize, inputSize];
    // A warm-up run of every session both pays ORT's first-run cost at start-up and shows the output
    // shape, hence the family; any letterbox fills a tensor of the right shape for it.
    const outputDims = (await opened.warmUp(ultralytics.letterbox(inputSize), dims)).tensors[0].dims;
    const family = chooseFamily(modelPath, description.family, outputDims);
    const categories = chooseCategories(modelPath, facts, family.classCount(outputDims), outputDims);
    const letterbox: LetterboxSpec = family.letterbox(inputSize);

    const { preprocess, inference } = letterboxStages(opened, letterbox, dims);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const candidates = family.readCandidates(output.tensors[0], inputSize, options.minScore);
      const maxDetections = detectionLimit(options, description);
      return toImageDetections(candidates, input.transform, input.image, { ...options, maxDetections, nmsIou: family.needsNms ? settings.nmsIou : undefined });
    };

    return {
      ...servedOnnxModel(modelPath, description, settings, opened),
      kind: description.kind ?? 'objects',
      family: family.name,
      labels: categories.labels,
      parents: categories.parents,
      inputSize: { width: inputSize, height: inputSize },
      preprocess,
      inference,
      postprocess,
      labelSource: categories.source,
    };
  });
}

/**
 * ONNX Runtime, as the model repository's runtime table lists it. The family reads the outputs: a
 * file whose configuration names a face family, or that has a face family's outputs, is read as
 * faces (found in the same places as the object detectors, no setting needed); one whose configuration
 * names the plate family (its outputs look like a COCO end-to-end export's), as plates; one whose
 * configuration names the plate reader's family, as that companion model; any other, as boxes
 * of classes. What the model finds is its configuration's `kind`, else what its family reads.
 */
export const onnxRuntime: Runtime = {
  name: 'onnxruntime',
  extensions: ['.onnx'],
  device: EXECUTION_DEVICE,
  async load(modelPath, defaults, logger) {
    // An unreadable file or configuration is the object loader's to refuse, in its own words.
    const outputs = await readOnnxFile(modelPath).then((summary) => summary.outputs, () => []);
    const named = await readModelDescription(modelPath).then((description) => description.family, () => undefined);
    if (named === PLATE_READER_FAMILY) return { companion: await loadOnnxPlateReader(modelPath, defaults, logger) };
    if (named === plateDetector.name) return { detector: await loadOnnxPlateDetector(modelPath, plateDetector, defaults, logger) };
    const faceFamily = named === undefined ? faceFamilyForOutputs(outputs) : faceFamilyByName(named);
    return { detector: await (faceFamily ? loadOnnxFaceDetector(modelPath, faceFamily, defaults, logger) : loadOnnxDetector(modelPath, defaults, logger)) };
  },
};
