import type * as WorkerThreads from 'node:worker_threads';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { OriginalWorker, useWorkerClass } from './support/worker-threads.js';

/**
 * Worker threads are made through a subclass that can kill the worker an inference run is being
 * sent to: a real worker thread, really terminated in the middle of a real call. It is terminated
 * just before the run is posted, while idle: terminated inside onnxruntime-node's native run, the
 * addon throws a C++ exception into a JavaScript that is gone and aborts the whole process (2 of
 * 25 runs when it was terminated just after) — a death no server can answer for.
 */
/** Set: the next worker sent an image to run (ONNX: a `run` request; TF.js: an image) is killed. */
let killAtNextRun = false;
const isRun = (message: unknown) => typeof message === 'object' && message !== null && ((message as { type?: string }).type === 'run' || 'data' in message);

class KillableWorker extends OriginalWorker {
  override postMessage(message: unknown, transfer?: readonly WorkerThreads.Transferable[]): void {
    if (killAtNextRun && isRun(message)) {
      killAtNextRun = false;
      void this.terminate();
    }
    super.postMessage(message, transfer);
  }
}

/** A call on a killed worker is answered 503 model_unavailable and logged; the next calls find the dog photo's dog. */
async function expectRestart(server: TestServer): Promise<void> {
  const request = imageRequest(photoPath('dog.jpg'));
  expect((await postDetection(server.url, request, { apiKey: server.apiKey })).status).to.equal(200);

  killAtNextRun = true;
  const killed = await postDetection(server.url, request, { apiKey: server.apiKey });
  expect(killAtNextRun, 'the worker was killed during the call').to.equal(false);
  expect(killed.status).to.equal(503);
  expect(killed.body.error.code).to.equal('model_unavailable');
  expect(killed.body.error.message).to.contain('inference worker stopped during this run');
  expect(killed.headers.get('retry-after')).to.equal('1');
  expect(server.logText()).to.contain('restarting it');

  for (let call = 0; call < 3; call++) {
    const next = await postDetection(server.url, request, { apiKey: server.apiKey });
    expect(next.status, JSON.stringify(next.body)).to.equal(200);
    expect(next.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
  }
}

describe('a dead inference worker (real server, real models, a worker thread killed mid-call)', () => {
  useWorkerClass(KillableWorker);

  for (const [model, env] of [
    ['an ONNX model', {}],
    ['the embedded TF.js model', { DETECTD_MODEL: '' }],
  ] as const) {
    it(`${model}: the call it was running gets 503 model_unavailable, the worker restarts with its model, the next calls work`, async () => {
      const server = await startTestServer(env);
      try {
        await expectRestart(server);
      } finally {
        await server.close();
      }
    });
  }
});
