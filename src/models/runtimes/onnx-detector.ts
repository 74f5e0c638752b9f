import path from 'node:path';
import type { RgbImage } from '../../vision/image.js';
import { letterboxInto, type LetterboxSpec, type LetterboxTransform } from '../../vision/letterbox.js';
import type { OnnxFamily } from '../families/family.js';
import { familyByName, familyForOutput, ONNX_FAMILIES } from '../families/index.js';
import { ultraface } from '../families/ultraface.js';
import { sidecarPath } from '../model-description.js';
import { ModelRefused } from '../model-refused.js';
import { type FileDetector, type FileRuntime, type InferenceSettings, modelNameOf } from '../model-repository.js';
import { chooseCategories, chooseInputSize, readModelFacts, Refusal } from '../onnx/model-facts.js';
import { readOnnxFile } from '../onnx/onnx-file.js';
import { toImageDetections } from '../postprocess.js';
import type { PostprocessOptions, Detection, Detector, PreprocessedInput, RawOutput } from '../types.js';
import { loadOnnxFaceDetector } from './onnx-face-detector.js';
import { OnnxSessionPool, sharedTensor } from './onnx-session-pool.js';


/** A reusable input tensor's values (shared with the inference workers) and the geometry it was last filled with. */
interface InputBuffer {
  readonly data: Float32Array;
  lastTransform?: LetterboxTransform;
}

function chooseFamily(modelPath: string, named: string | undefined, outputDims: readonly number[]): OnnxFamily {
  const found = named ? familyByName(named) : familyForOutput(outputDims);
  if (found) return found;
  const known = ONNX_FAMILIES.map((entry) => entry.name).join(', ');
  throw new Refusal(
    named
      ? `unknown model family "${named}" (known: ${known})`
      : `cannot tell the family of a model with output [${outputDims.join(', ')}]; name one of ${known} as "family" in ${path.basename(sidecarPath(modelPath))}`,
  );
}

/**
 * Loads an ONNX detector: its sessions in worker threads (onnx-session-pool.ts), and
 * `concurrency + 1` preallocated input tensors so that the next image is letterboxed while the
 * current ones run. Who uses which tensor and when is the scheduler's decision. The model's
 * configuration file overrides `defaults` and what the model file's metadata says; every reason
 * not to serve the model throws ModelRefused.
 */
export async function loadOnnxDetector(modelPath: string, defaults: InferenceSettings): Promise<FileDetector> {
  let pool: OnnxSessionPool | undefined;
  try {
    const facts = await readModelFacts(modelPath);
    const { description } = facts;
    const settings: InferenceSettings = {
      threads: description.threads ?? defaults.threads,
      concurrency: description.concurrency ?? defaults.concurrency,
      nmsIou: description.nmsIou ?? defaults.nmsIou,
    };
    const opened = await OnnxSessionPool.open(modelPath, settings);
    pool = opened;
    const inputSize = chooseInputSize(modelPath, opened.signature.inputShape, facts);
    const dims = [1, 3, inputSize, inputSize];
    const values = 3 * inputSize * inputSize;
    const buffers: InputBuffer[] = Array.from({ length: settings.concurrency + 1 }, () => ({ data: sharedTensor(values) }));
    // A warm-up run of every session both pays ORT's first-run cost at start-up and shows the output shape.
    const outputDims = (await opened.warmUp(buffers[0].data, dims)).dims;
    const family = chooseFamily(modelPath, description.family, outputDims);
    const categories = chooseCategories(modelPath, facts, family.classCount(outputDims), outputDims);
    const letterbox: LetterboxSpec = family.letterbox(inputSize);

    const preprocess = (image: RgbImage, buffer: number): PreprocessedInput => {
      const tensor = buffers[buffer];
      const transform = letterboxInto(image, letterbox, tensor.data, tensor.lastTransform);
      tensor.lastTransform = transform;
      return { buffer, image, transform: { scaleX: transform.scale, scaleY: transform.scale, padLeft: transform.padLeft, padTop: transform.padTop } };
    };
    const inference = (input: PreprocessedInput, alone: boolean): Promise<RawOutput> => opened.run(buffers[input.buffer].data, dims, alone);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const candidates = family.readCandidates(output, inputSize, options.minScore);
      const maxDetections = Math.min(options.maxDetections, description.maxDetections ?? options.maxDetections);
      return toImageDetections(candidates, input.transform, input.image, { ...options, maxDetections, nmsIou: family.needsNms ? settings.nmsIou : undefined });
    };

    return {
      name: modelNameOf(modelPath),
      kind: 'objects',
      family: family.name,
      runtime: 'onnxruntime-node',
      // The sessions name no execution provider (onnx-session-options.ts): ONNX Runtime's default, the CPU's.
      device: 'CPU',
      aliases: description.aliases ?? [],
      labels: categories.labels,
      parents: categories.parents,
      inputSize: { width: inputSize, height: inputSize },
      capacity: { inputs: buffers.length, runs: settings.concurrency },
      preprocess,
      inference,
      postprocess,
      dispose: () => opened.close(),
      settings,
      labelSource: categories.source,
    };
  } catch (error) {
    await pool?.close();
    if (error instanceof Refusal) throw new ModelRefused(modelPath, error.message);
    // ONNX Runtime's own words (e.g. a corrupt file, an unsupported operator) are the reason.
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}

/** ONNX Runtime, as the model repository's runtime table lists it. */
/**
 * ONNX model files: a face detector when the file declares UltraFace's outputs (found in the same
 * places as the object detectors, no setting needed), else an object detector.
 */
export const onnxRuntime: FileRuntime = {
  name: 'onnxruntime',
  extensions: ['.onnx'],
  async load(modelPath, defaults) {
    // An unreadable file is the object loader's to refuse, with ONNX Runtime's words.
    const outputs = await readOnnxFile(modelPath).then((summary) => summary.outputs, () => []);
    return ultraface.matchesOutputs(outputs) ? loadOnnxFaceDetector(modelPath, defaults) : loadOnnxDetector(modelPath, defaults);
  },
};
