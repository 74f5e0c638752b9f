import { constants, PerformanceObserver } from 'node:perf_hooks';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { dogJpeg } from './support/images.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memory at rest: the server collects what its last images left once calls stop (real server)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('runs one full collection about 2 s after the last call, and none while it stays idle', async () => {
    const majorCollections: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorCollections.push(entry.startTime);
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      const body = imageRequest(dogJpeg(), { OutputCroppedImage: 'true', OutputVisualizedImage: 'true' });
      for (let i = 0; i < 3; i++) expect((await postDetection(server.url, body, { apiKey: server.apiKey })).status).to.equal(200);
      const lastCall = performance.now();
      await sleep(3_500);
      const afterIdle = majorCollections.filter((at) => at > lastCall + 1_500);
      expect(afterIdle, 'full collections 1.5–3.5 s after the last call').to.have.length(1);
      const seen = majorCollections.length;
      await sleep(3_000);
      expect(majorCollections.length, 'no further collection while nothing happens').to.equal(seen);
    } finally {
      observer.disconnect();
    }
  });
});
