import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { RgbImage } from '../../vision/image.js';
import { letterboxInto, type LetterboxSpec, type LetterboxTransform } from '../../vision/letterbox.js';
import type { OnnxFamily } from '../families/family.js';
import { familyByName, familyForOutput, ONNX_FAMILIES } from '../families/index.js';
import { sidecarPath } from '../model-description.js';
import { ModelRefused } from '../model-refused.js';
import { modelNameOf } from '../model-repository.js';
import { chooseCategories, chooseInputSize, readModelFacts, Refusal } from '../onnx/model-facts.js';
import { toImageDetections } from '../postprocess.js';
import type { DecodeOptions, Detection, Detector, PreparedInput, RawOutput } from '../types.js';

export interface OnnxDetectorSettings {
  /** ONNX Runtime intra-op threads. */
  readonly threads: number;
  /** Runs in flight at once on the one session. */
  readonly concurrency: number;
  readonly nmsIou: number;
}

/** An ONNX detector and what it was loaded with, for the start-up log and `detectd models list`. */
export interface OnnxDetector extends Detector {
  readonly settings: OnnxDetectorSettings;
  /** Where its labels came from: `configuration`, `metadata` or `coco-80`. */
  readonly labelSource: string;
}

/** A reusable input tensor and the geometry it was last filled with. */
interface InputBuffer {
  readonly tensor: ort.Tensor;
  readonly data: Float32Array;
  lastTransform?: LetterboxTransform;
}

/** ORT session options of every detector session (the benchmark's raw baseline uses them too). */
export function sessionOptions(threads: number): ort.InferenceSession.SessionOptions {
  return { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
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
 * Loads an ONNX detector: one ORT session, and `concurrency + 1` preallocated input tensors so
 * that the next image is letterboxed while the current one runs. Who uses which tensor and
 * when is the scheduler's decision. The model's configuration file overrides `defaults` and what
 * the model file's metadata says; every reason not to serve the model throws ModelRefused.
 */
export async function loadOnnxDetector(modelPath: string, defaults: OnnxDetectorSettings): Promise<OnnxDetector> {
  let session: ort.InferenceSession | undefined;
  try {
    const facts = await readModelFacts(modelPath);
    const { description } = facts;
    const settings: OnnxDetectorSettings = {
      threads: description.threads ?? defaults.threads,
      concurrency: description.concurrency ?? defaults.concurrency,
      nmsIou: description.nmsIou ?? defaults.nmsIou,
    };
    const opened = await ort.InferenceSession.create(modelPath, sessionOptions(settings.threads));
    session = opened;
    const inputName = opened.inputNames[0];
    const outputName = opened.outputNames[0];
    const inputMetadata = opened.inputMetadata[0];
    const inputSize = chooseInputSize(modelPath, inputMetadata?.isTensor ? inputMetadata.shape : [], facts);

    const makeBuffer = (): InputBuffer => {
      const data = new Float32Array(3 * inputSize * inputSize);
      return { data, tensor: new ort.Tensor('float32', data, [1, 3, inputSize, inputSize]) };
    };
    const buffers = Array.from({ length: settings.concurrency + 1 }, makeBuffer);
    // A warm-up run both pays ORT's first-run cost at start-up and shows the output shape.
    const warmUp = await opened.run({ [inputName]: buffers[0].tensor });
    const outputDims = warmUp[outputName].dims;
    const family = chooseFamily(modelPath, description.family, outputDims);
    const categories = chooseCategories(modelPath, facts, family.classCount(outputDims), outputDims);
    const letterbox: LetterboxSpec = family.letterbox(inputSize);

    const prepare = (image: RgbImage, input: number): PreparedInput => {
      const buffer = buffers[input];
      const transform = letterboxInto(image, letterbox, buffer.data, buffer.lastTransform);
      buffer.lastTransform = transform;
      return { input, image, transform: { scaleX: transform.scale, scaleY: transform.scale, padLeft: transform.padLeft, padTop: transform.padTop } };
    };
    const run = async (prepared: PreparedInput): Promise<RawOutput> => {
      const output = (await opened.run({ [inputName]: buffers[prepared.input].tensor }))[outputName];
      return { data: output.data as Float32Array, dims: output.dims };
    };
    const decode = (output: RawOutput, prepared: PreparedInput, options: DecodeOptions): Detection[] => {
      const candidates = family.decode(output, inputSize, options.minScore);
      return toImageDetections(candidates, prepared.transform, prepared.image, { ...options, nmsIou: family.needsNms ? settings.nmsIou : undefined });
    };

    return {
      name: modelNameOf(modelPath),
      family: family.name,
      runtime: 'onnxruntime-node',
      labels: categories.labels,
      parents: categories.parents,
      inputSize: { width: inputSize, height: inputSize },
      capacity: { inputs: buffers.length, runs: settings.concurrency },
      prepare,
      run,
      decode,
      dispose: () => opened.release(),
      settings,
      labelSource: categories.source,
    };
  } catch (error) {
    await session?.release();
    if (error instanceof Refusal) throw new ModelRefused(modelPath, error.message);
    // ONNX Runtime's own words (e.g. a corrupt file, an unsupported operator) are the reason.
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}
