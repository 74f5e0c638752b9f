import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { letterboxInto, type LetterboxSpec, type LetterboxTransform } from '../../vision/letterbox.js';
import { sessionOptions } from './onnx-session-options.js';
import type { CloseRequest, RunRequest, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';

/**
 * Worker-thread entry: opens ONNX Runtime sessions of one model, letterboxes the images it is sent
 * and runs them.
 * onnxruntime-node's `run` computes on the calling thread, so inference in the main thread
 * would stall every request behind it, and one thread could run only one inference at a time.
 */
const port = parentPort!;
const { modelPath, sessions: plans } = workerData as SessionWorkerData;
const post = (message: SessionWorkerMessage, transfer: ArrayBuffer[]) => port.postMessage(message, transfer);

const sessions: ort.InferenceSession[] = [];
for (const plan of plans) sessions.push(await ort.InferenceSession.create(modelPath, sessionOptions(plan.threads, plan.spinning)));
const [first] = sessions;
const metadata = first.inputMetadata[0];
port.postMessage({
  type: 'ready',
  signature: { inputName: first.inputNames[0], outputName: first.outputNames[0], inputShape: metadata?.isTensor ? metadata.shape : [] },
} satisfies SessionWorkerMessage);

// The tensor ONNX Runtime reads (it takes no shared memory), filled in place by the letterbox:
// the image's pixels are read where they were decoded, and no full tensor is copied between threads.
let ownInput = new Float32Array(0);
/** What `ownInput` was last filled with: the padding stays in place while both are the same. */
let lastSpec: LetterboxSpec | undefined;
let lastTransform: LetterboxTransform | undefined;

const sameSpec = (a: LetterboxSpec, b: LetterboxSpec) =>
  a.size === b.size && a.placement === b.placement && a.channelOrder === b.channelOrder && a.pixelScale === b.pixelScale && a.padValue === b.padValue;

port.on('message', async (request: RunRequest | CloseRequest) => {
  if (request.type === 'close') {
    await Promise.all(sessions.map((session) => session.release()));
    port.close();
    return;
  }
  const { id, session, width, height, pixels, letterbox, dims } = request;
  try {
    const started = performance.now();
    if (!lastSpec || !sameSpec(lastSpec, letterbox)) {
      ownInput = new Float32Array(3 * letterbox.size * letterbox.size);
      lastTransform = undefined;
    }
    const data = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    lastTransform = letterboxInto({ width, height, data }, letterbox, ownInput, lastTransform);
    lastSpec = letterbox;
    const preprocessMs = performance.now() - started;
    const results = await sessions[session].run({ [first.inputNames[0]]: new ort.Tensor('float32', ownInput, dims) });
    const output = results[first.outputNames[0]];
    const outputData = output.data as Float32Array;
    post({ type: 'output', id, output: { data: outputData, dims: output.dims, preprocessMs } }, [outputData.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: 'failure', id, message: error instanceof Error ? error.message : String(error) }, []);
  }
});
