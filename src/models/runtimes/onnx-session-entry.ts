import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { joinOutputs } from './joined-outputs.js';
import { sessionOptions } from './onnx-session-options.js';
import type { CloseRequest, RunRequest, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';

/**
 * Worker-thread entry: opens ONNX Runtime sessions of one model and runs the inputs it is sent.
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

// ONNX Runtime takes no shared memory as a tensor: each run copies the input into this worker's own.
let ownInput = new Float32Array(0);

port.on('message', async (request: RunRequest | CloseRequest) => {
  if (request.type === 'close') {
    await Promise.all(sessions.map((session) => session.release()));
    port.close();
    return;
  }
  const { id, session, input, dims } = request;
  try {
    if (ownInput.length !== input.length) ownInput = new Float32Array(input.length);
    ownInput.set(input);
    const results = await sessions[session].run({ [first.inputNames[0]]: new ort.Tensor('float32', ownInput, dims) });
    const output = joinOutputs(first.outputNames.map((name) => ({ data: results[name].data as Float32Array, dims: results[name].dims })));
    post({ type: 'output', id, output }, [output.data.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: 'failure', id, message: error instanceof Error ? error.message : String(error) }, []);
  }
});
