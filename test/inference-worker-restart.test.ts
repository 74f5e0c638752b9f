import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { expectDogPhotoObjects } from './support/dog-photo.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/**
 * Worker threads are made through a subclass that can kill the worker an inference run was just
 * sent to: a real worker thread, really terminated in the middle of a real call. Installed on
 * `node:worker_threads` itself (the server's modules see it through their live imports) for this
 * file only.
 */
const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
const OriginalWorker = workerThreads.Worker;
let killAtNextRun = false;

class KillableWorker extends OriginalWorker {
  override postMessage(message: unknown, transfer?: readonly WorkerThreads.Transferable[]): void {
    super.postMessage(message, transfer);
    if (killAtNextRun && (message as { type?: string } | null)?.type === 'run') {
      killAtNextRun = false;
      void this.terminate();
    }
  }
}

describe('a dead inference worker (real server, real model, a worker thread killed mid-call)', () => {
  let server: TestServer;

  before(async () => {
    workerThreads.Worker = KillableWorker;
    syncBuiltinESMExports();
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
    workerThreads.Worker = OriginalWorker;
    syncBuiltinESMExports();
  });

  it('answers the call it was running 503 model_unavailable, restarts with its session, and the next call works', async () => {
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
      expectDogPhotoObjects(next.body.detected_objects);
    }
  });
});
