import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { cropsInto, cropsLength, type CropsSpec } from '../../../vision/crops.js';
import { letterboxInto, type LetterboxTransform } from '../../../vision/letterbox.js';
import { padInto } from '../../../vision/pad.js';
import { stretchInto } from '../../../vision/stretch.js';
import type { OutputTensor } from '../../types.js';
import { withFreeInputSize } from './onnx-free-input.js';
import { sessionOptions } from './onnx-session-options.js';
import type { CloseRequest, InputLayout, RunRequest, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';

/**
 * Worker-thread entry: opens ONNX Runtime sessions of one model, letterboxes (or stretches) the images it is sent
 * and runs them.
 * onnxruntime-node's `run` computes on the calling thread, so inference in the main thread
 * would stall every request behind it, and one thread could run only one inference at a time.
 */
const port = parentPort!;
const { modelPath, sessions: plans, freeInputSize } = workerData as SessionWorkerData;
const post = (message: SessionWorkerMessage, transfer: ArrayBuffer[]) => port.postMessage(message, transfer);

const sessions: ort.InferenceSession[] = [];
const model = freeInputSize ? await withFreeInputSize(modelPath) : undefined;
for (const plan of plans) {
  const options = sessionOptions(plan.threads, plan.spinning);
  sessions.push(await (model ? ort.InferenceSession.create(model, options) : ort.InferenceSession.create(modelPath, options)));
}
const [first] = sessions;
const metadata = first.inputMetadata[0];
port.postMessage({
  type: 'ready',
  signature: { inputName: first.inputNames[0], outputName: first.outputNames[0], inputShape: metadata?.isTensor ? metadata.shape : [] },
} satisfies SessionWorkerMessage);

// The tensor ONNX Runtime reads (it takes no shared memory), filled in place by the letterbox:
// the image's pixels are read where they were decoded, and no full tensor is copied between threads.
// An input that changes size with each image (a padded one) is a view of the front of it.
let ownInput = new Float32Array(0);
/** Likewise for a uint8 input (a batch of crops). */
let ownBytes = new Uint8Array(0);
/** What `ownInput` was last filled with: a letterbox's padding stays in place while both are the same. */
let lastLayout: InputLayout | undefined;
let lastTransform: LetterboxTransform | undefined;

const sameLayout = (a: InputLayout, b: InputLayout) => JSON.stringify(a) === JSON.stringify(b);
const valuesOf = (layout: Exclude<InputLayout, CropsSpec>) => 3 * layout.width * layout.height;

/** The input tensor of a batch of crops, refilled from the image: uint8 NHWC, or float32 NCHW when normalised. */
function fillCrops(image: { width: number; height: number; data: Buffer }, layout: CropsSpec, dims: readonly number[]): ort.Tensor {
  const values = cropsLength(layout);
  if (layout.normalise) {
    // Not the letterbox's buffer: its padding must stay where it is for the next image.
    const input = new Float32Array(values);
    cropsInto(image, layout, input);
    return new ort.Tensor('float32', input, dims);
  }
  if (ownBytes.length < values) ownBytes = new Uint8Array(values);
  const input = ownBytes.subarray(0, values);
  cropsInto(image, layout, input);
  return new ort.Tensor('uint8', input, dims);
}

/** The input tensor's values for `layout`, refilled from the image. */
function fill(image: { width: number; height: number; data: Buffer }, layout: Exclude<InputLayout, CropsSpec>): Float32Array {
  const values = valuesOf(layout);
  if (!lastLayout || !sameLayout(lastLayout, layout)) lastTransform = undefined;
  if (ownInput.length < values) ownInput = new Float32Array(values);
  const input = ownInput.length === values ? ownInput : ownInput.subarray(0, values);
  if ('placement' in layout) lastTransform = letterboxInto(image, layout, input, lastTransform);
  else if ('resizedWidth' in layout) padInto(image, layout, input);
  else stretchInto(image, layout, input);
  lastLayout = layout;
  return input;
}

port.on('message', async (request: RunRequest | CloseRequest) => {
  if (request.type === 'close') {
    await Promise.all(sessions.map((session) => session.release()));
    port.close();
    return;
  }
  const { id, session, width, height, pixels, layout, dims } = request;
  try {
    const started = performance.now();
    const image = { width, height, data: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength) };
    const tensor = 'crops' in layout ? fillCrops(image, layout, dims) : new ort.Tensor('float32', fill(image, layout), dims);
    const preprocessMs = performance.now() - started;
    const results = await sessions[session].run({ [first.inputNames[0]]: tensor });
    const tensors: OutputTensor[] = first.outputNames.map((name) => ({ name, data: results[name].data as Float32Array, dims: results[name].dims }));
    post({ type: 'output', id, output: { tensors, preprocessMs } }, [...new Set(tensors.map((tensor) => tensor.data.buffer as ArrayBuffer))]);
  } catch (error) {
    post({ type: 'failure', id, message: error instanceof Error ? error.message : String(error) }, []);
  }
});
