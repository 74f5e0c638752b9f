import { parentPort, workerData } from 'node:worker_threads';
import type { RunRequest, ThreadedDetectorSpec, ThreadedRuntimeModule, WorkerMessage } from './threaded-detector-protocol.js';

/**
 * Worker-thread entry: loads one model and runs it on the images it is sent. Runtimes whose
 * inference is synchronous JavaScript/wasm (TF.js) run here so the HTTP event loop never stalls
 * behind a model call.
 */
const port = parentPort!;
const spec = workerData as ThreadedDetectorSpec;
const post = (message: WorkerMessage) => port.postMessage(message);

const module = (await import(spec.moduleUrl)) as ThreadedRuntimeModule<unknown>;
const model = await module.loadWorkerModel({ logger: (message) => post({ type: 'log', message }) });
// The first call compiles kernels (docs/performance.md): paid here, as the server loads its models at start-up, not on a request.
const side = 64;
await model.run({ width: side, height: side, data: Buffer.alloc(side * side * 3, 114) });
post({ type: 'ready', summary: model.summary });

port.on('message', async (request: RunRequest) => {
  try {
    const image = { width: request.width, height: request.height, data: Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength) };
    post({ type: 'output', id: request.id, output: await model.run(image) });
  } catch (error) {
    post({ type: 'failure', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
});
