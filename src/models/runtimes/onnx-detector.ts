import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { letterboxInto, type LetterboxSpec, type LetterboxTransform } from '../../vision/letterbox.js';
import { COCO_LABELS } from '../coco-categories.js';
import type { Candidate, OnnxFamily } from '../families/family.js';
import { familyByName, familyForOutput, ONNX_FAMILIES } from '../families/index.js';
import { readModelDescription } from '../model-description.js';
import { nonMaxSuppression } from '../nms.js';
import { ResourcePool } from '../../scheduler/resource-pool.js';
import type { RgbImage } from '../../vision/image.js';
import type { Detection, DetectionResult, DetectOptions, Detector } from '../types.js';

export interface OnnxDetectorSettings {
  /** ONNX Runtime intra-op threads. */
  readonly threads: number;
  /** Runs in flight at once on the one session. */
  readonly concurrency: number;
  readonly nmsIou: number;
}

/** A reusable input tensor and the geometry it was last filled with. */
interface InputSlot {
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

/** Maps letterboxed network-input boxes back to image pixels, clipped to the image. */
function toImageDetections(candidates: Candidate[], transform: LetterboxTransform, width: number, height: number): Detection[] {
  const { scale, padLeft, padTop } = transform;
  const clip = (value: number, max: number) => Math.min(max, Math.max(0, value));
  const detections: Detection[] = [];
  for (const candidate of candidates) {
    const box = {
      left: clip((candidate.x1 - padLeft) / scale, width),
      top: clip((candidate.y1 - padTop) / scale, height),
      right: clip((candidate.x2 - padLeft) / scale, width),
      bottom: clip((candidate.y2 - padTop) / scale, height),
    };
    if (box.right <= box.left || box.bottom <= box.top) continue;
    detections.push({ classIndex: candidate.classIndex, score: candidate.score, box });
  }
  return detections;
}

/**
 * Loads an ONNX detector: one ORT session, reused by every request; a small pool of
 * preallocated input tensors so that preprocessing of the next image overlaps the current run.
 */
export async function loadOnnxDetector(modelPath: string, settings: OnnxDetectorSettings): Promise<Detector> {
  const description = await readModelDescription(modelPath);
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(settings.threads));
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const inputSize = inputSizeOf(session, description.inputSize);
  const plane = inputSize * inputSize;

  const makeSlot = (): InputSlot => {
    const data = new Float32Array(3 * plane);
    return { data, tensor: new ort.Tensor('float32', data, [1, 3, inputSize, inputSize]) };
  };
  // A warm-up run both pays ORT's first-run cost at start-up and shows the output shape.
  const warmUpSlot = makeSlot();
  const warmUp = await session.run({ [inputName]: warmUpSlot.tensor });
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
  const labels = description.labels ?? COCO_LABELS;
  const inputSlots = new ResourcePool<InputSlot>([warmUpSlot, ...Array.from({ length: settings.concurrency }, makeSlot)]);
  const runSlots = new ResourcePool<number>(Array.from({ length: settings.concurrency }, (_, index) => index));

  async function detect(image: RgbImage, options: DetectOptions): Promise<DetectionResult> {
    return inputSlots.use(async (slot) => {
      const started = performance.now();
      const transform = letterboxInto(image, letterbox, slot.data, slot.lastTransform);
      slot.lastTransform = transform;
      const preprocessed = performance.now();
      const { outputs, inferenceMs } = await runSlots.use(async () => {
        const runStarted = performance.now();
        const result = await session.run({ [inputName]: slot.tensor });
        return { outputs: result, inferenceMs: performance.now() - runStarted };
      }, options.signal);
      const inferred = performance.now();
      const output = outputs[outputName];
      const candidates = family.decode({ data: output.data as Float32Array, dims: output.dims }, inputSize, options.minScore);
      const kept = family.needsNms
        ? nonMaxSuppression(candidates, settings.nmsIou, options.maxDetections)
        : candidates.sort((a, b) => b.score - a.score).slice(0, options.maxDetections);
      const detections = toImageDetections(kept, transform, image.width, image.height);
      return {
        detections,
        timings: { preprocess: preprocessed - started, inference: inferenceMs, postprocess: performance.now() - inferred },
      };
    }, options.signal);
  }

  return {
    name: path.basename(modelPath, path.extname(modelPath)),
    family: family.name,
    runtime: 'onnxruntime-node',
    labels,
    inputSize: { width: inputSize, height: inputSize },
    detect,
    dispose: () => session.release(),
  };
}
