import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { letterboxInto, type LetterboxTransform } from '../../vision/letterbox.js';
import { stretchInto } from '../../vision/stretch.js';
import { joinOutputs } from './joined-outputs.js';
import { sessionOptions } from './onnx-session-options.js';
import type { CloseRequest, InputLayout, RunRequest, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';

/**
 * Worker-thread entry: opens ONNX Runtime sessions of one model, letterboxes (or stretches) the images it is sent
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
/** What `ownInput` was last filled with: a letterbox's padding stays in place while both are the same. */
let lastLayout: InputLayout | undefined;
let lastTransform: LetterboxTransform | undefined;

const sameLayout = (a: InputLayout, b: InputLayout) => JSON.stringify(a) === JSON.stringify(b);
const valuesOf = (layout: InputLayout) => ('size' in layout ? 3 * layout.size * layout.size : 3 * layout.width * layout.height);

port.on('message', async (request: RunRequest | CloseRequest) => {
  if (request.type === 'close') {
    await Promise.all(sessions.map((session) => session.release()));
    port.close();
    return;
  }
  const { id, session, width, height, pixels, layout, dims } = request;
  try {
    const started = performance.now();
    if (!lastLayout || !sameLayout(lastLayout, layout)) {
      ownInput = new Float32Array(valuesOf(layout));
      lastTransform = undefined;
    }
    const image = { width, height, data: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength) };
    if ('size' in layout) lastTransform = letterboxInto(image, layout, ownInput, lastTransform);
    else stretchInto(image, layout, ownInput);
    lastLayout = layout;
    const preprocessMs = performance.now() - started;
    const results = await sessions[session].run({ [first.inputNames[0]]: new ort.Tensor('float32', ownInput, dims) });
    const output = joinOutputs(first.outputNames.map((name) => ({ data: results[name].data as Float32Array, dims: results[name].dims })));
    post({ type: 'output', id, output: { ...output, preprocessMs } }, [output.data.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: 'failure', id, message: error instanceof Error ? error.message : String(error) }, []);
  }
});
