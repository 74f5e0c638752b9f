import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { RgbImage } from '../../vision/image.js';
import { letterboxInto, type LetterboxSpec, type LetterboxTransform } from '../../vision/letterbox.js';
import { COCO_LABELS } from '../coco-categories.js';
import type { OnnxFamily } from '../families/family.js';
import { familyByName, familyForOutput, ONNX_FAMILIES } from '../families/index.js';
import { readModelDescription } from '../model-description.js';
import { toImageDetections } from '../postprocess.js';
import type { DecodeOptions, Detection, Detector, PreparedInput, RawOutput } from '../types.js';

export interface OnnxDetectorSettings {
  /** ONNX Runtime intra-op threads. */
  readonly threads: number;
  /** Runs in flight at once on the one session. */
  readonly concurrency: number;
  readonly nmsIou: number;
}

/** A reusable input tensor and the geometry it was last filled with. */
interface InputBuffer {
  readonly tensor: ort.Tensor;
  readonly data: Float32Array;
  lastTransform?: LetterboxTransform;
}

const DEFAULT_INPUT_SIZE = 640;

/** ORT session options of every detector session (the benchmark's raw baseline uses them too). */
export function sessionOptions(threads: number): ort.InferenceSession.SessionOptions {
  return { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
}

function inputSizeOf(session: ort.InferenceSession, sidecarSize: number | undefined): number {
  const metadata = session.inputMetadata[0];
  const shape = metadata?.isTensor ? metadata.shape : [];
  const [height, width] = [shape[2], shape[3]];
  if (typeof width === 'number' && typeof height === 'number') {
    if (width !== height) throw new Error(`only square inputs are supported, model input is ${width}×${height}`);
    if (sidecarSize !== undefined && sidecarSize !== width) throw new Error(`sidecar inputSize ${sidecarSize} contradicts the model's ${width}`);
    return width;
  }
  return sidecarSize ?? DEFAULT_INPUT_SIZE;
}

/**
 * Loads an ONNX detector: one ORT session, and `concurrency + 1` preallocated input tensors so
 * that the next image is letterboxed while the current one runs. Who uses which tensor and
 * when is the scheduler's decision.
 */
export async function loadOnnxDetector(modelPath: string, settings: OnnxDetectorSettings): Promise<Detector> {
  const description = await readModelDescription(modelPath);
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(settings.threads));
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const inputSize = inputSizeOf(session, description.inputSize);

  const makeBuffer = (): InputBuffer => {
    const data = new Float32Array(3 * inputSize * inputSize);
    return { data, tensor: new ort.Tensor('float32', data, [1, 3, inputSize, inputSize]) };
  };
  const buffers = Array.from({ length: settings.concurrency + 1 }, makeBuffer);
  // A warm-up run both pays ORT's first-run cost at start-up and shows the output shape.
  const warmUp = await session.run({ [inputName]: buffers[0].tensor });
  const outputDims = warmUp[outputName].dims;

  const found: OnnxFamily | undefined = description.family ? familyByName(description.family) : familyForOutput(outputDims);
  if (!found) {
    const known = ONNX_FAMILIES.map((entry) => entry.name).join(', ');
    throw new Error(
      description.family
        ? `unknown model family "${description.family}" (known: ${known})`
        : `cannot tell the family of a model with output [${outputDims.join(', ')}]; name one of ${known} in ${path.basename(modelPath, '.onnx')}.json`,
    );
  }
  const family = found;
  const letterbox: LetterboxSpec = family.letterbox(inputSize);

  function prepare(image: RgbImage, input: number): PreparedInput {
    const buffer = buffers[input];
    const transform = letterboxInto(image, letterbox, buffer.data, buffer.lastTransform);
    buffer.lastTransform = transform;
    return { input, image, transform: { scaleX: transform.scale, scaleY: transform.scale, padLeft: transform.padLeft, padTop: transform.padTop } };
  }

  async function run(prepared: PreparedInput): Promise<RawOutput> {
    const output = (await session.run({ [inputName]: buffers[prepared.input].tensor }))[outputName];
    return { data: output.data as Float32Array, dims: output.dims };
  }

  function decode(output: RawOutput, prepared: PreparedInput, options: DecodeOptions): Detection[] {
    const candidates = family.decode(output, inputSize, options.minScore);
    return toImageDetections(candidates, prepared.transform, prepared.image, { ...options, nmsIou: family.needsNms ? settings.nmsIou : undefined });
  }

  return {
    name: path.basename(modelPath, path.extname(modelPath)),
    family: family.name,
    runtime: 'onnxruntime-node',
    labels: description.labels ?? COCO_LABELS,
    inputSize: { width: inputSize, height: inputSize },
    capacity: { inputs: buffers.length, runs: settings.concurrency },
    prepare,
    run,
    decode,
    dispose: () => session.release(),
  };
}
