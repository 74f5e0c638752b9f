import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { KillableWorker } from './support/killable-worker.js';
import { useWorkerClass } from './support/worker-threads.js';

/** A call on a killed worker is answered 503 model_unavailable and logged; the next calls find the dog photo's dog. */
async function expectRestart(server: TestServer): Promise<void> {
  const request = imageRequest(photoPath('dog.jpg'));
  expect((await postDetection(server.url, request, { apiKey: server.apiKey })).status).to.equal(200);

  KillableWorker.killAtNextRun = true;
  const killed = await postDetection(server.url, request, { apiKey: server.apiKey });
  expect(KillableWorker.killAtNextRun, 'the worker was killed during the call').to.equal(false);
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
