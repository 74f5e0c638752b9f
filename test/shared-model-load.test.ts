import { expect } from 'chai';
import { makePanClip, type PanClip } from '../scripts/lib/pan-clip.js';
import { StreamClient } from '../scripts/lib/stream-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { dogJpeg } from './support/images.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Sends every frame of the clip as fast as the socket takes them, `rounds` times over. */
function hammer(client: StreamClient, frames: Buffer[], rounds: number): number {
  let frameId = 0;
  for (let round = 0; round < rounds; round++) for (const frame of frames) client.sendFrame(frame, ++frameId);
  return frameId;
}

describe('HTTP requests and video streams sharing one model (real server, real model)', () => {
  let server: TestServer;
  let clip: PanClip;
  const MAX_PENDING = 2;

  before(async () => {
    [server, clip] = await Promise.all([startTestServer({ DETECTD_MAX_PENDING_REQUESTS: String(MAX_PENDING) }), makePanClip(photoPath('dog.jpg'), 1)]);
  });
  after(async () => {
    await server?.close();
    clip?.remove();
  });

  it('serves both kinds while two streams hammer the model: HTTP past the bound gets 503 overloaded, streams drop frames, nobody starves', async () => {
    const streams = [await StreamClient.start(server.url, server.apiKey), await StreamClient.start(server.url, server.apiKey)];
    const sent = streams.map((client) => hammer(client, clip.frames, 3));

    // A burst far over the bound, all at once, while the streams keep the model busy.
    const burst = await Promise.all(Array.from({ length: 4 * MAX_PENDING + 2 }, () => postDetection(server.url, imageRequest(dogJpeg()), { apiKey: server.apiKey })));
    const statuses = burst.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200).length, `statuses ${statuses}`).to.be.at.least(1);
    const refused = burst.filter((answer) => answer.status === 503);
    expect(refused.length, `statuses ${statuses}`).to.be.at.least(1);
    expect(refused.length + statuses.filter((status) => status === 200).length).to.equal(burst.length);
    for (const answer of refused) {
      expect(answer.body.error.code).to.equal('overloaded');
      expect(answer.headers.get('retry-after')).to.equal('1');
    }
    // Requests one after another are all served while the streams still wait for results.
    for (let index = 0; index < 3; index++) {
      const answer = await postDetection(server.url, imageRequest(dogJpeg()), { apiKey: server.apiKey });
      expect(answer.status).to.equal(200);
      expect(answer.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
    }

    // Each stream gets its last frame analysed, dropped the stale ones it could not keep up with, and found the dog.
    for (const [index, client] of streams.entries()) {
      await client.waitFor((messages) => messages.some((message) => message.frame_id === sent[index]), 120_000);
      const results = client.results();
      const dropped = results.reduce((sum, result) => sum + result.dropped, 0);
      expect(results.length + dropped).to.equal(sent[index]);
      expect(dropped, 'frames dropped').to.be.greaterThan(0);
      expect(results.some((result) => result.detected_objects.some((object: { name: string }) => object.name === 'dog'))).to.equal(true);
      await client.close();
    }
  });
});
