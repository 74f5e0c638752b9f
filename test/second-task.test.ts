import { expect } from 'chai';
import WebSocket from 'ws';
import { refusedUpgrade, StreamClient } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { decodeNvisionMessage, encodeNvisionMessage, type NvisionMessage } from '../src/transports/stream-nvision/nvision-wire.js';
import { ConsoleClient } from './support/console-client.js';
import { DOG_SIZE, dogJpeg } from './support/images.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';
import { WHOLE_IMAGE_TYPE, wholeImageTask } from './support/whole-image-task.js';

const WHOLE_DOG = { name: 'dog photo', parent: 'image', confidence: 1, bounding_box: { left: 0, top: 0, right: DOG_SIZE.width, bottom: DOG_SIZE.height } };

/**
 * docs/development.md "Architecture": a new task is one folder and one line in the task table, and every front
 * door picks it up. A test task (test/support/whole-image-task.ts) added to the table the server is
 * started with gets its REST routes (v1 and legacy), both video streams, stream tokens and its
 * OpenAPI paths, and the console's service form, with no line of any door or page changed — and its
 * keys open its doors only.
 */
describe('a second task in the task table: every door and the OpenAPI document pick it up (real server)', () => {
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: 'open' }, undefined, [...FEATURES, { name: 'whole-image', docs: 'test/support/whole-image-task.ts', parts: () => ({ tasks: [wholeImageTask] }) }]);
    apiKey = await server.createService({ name: 'whole images', type: WHOLE_IMAGE_TYPE });
  });
  after(async () => server?.close());

  const post = (path: string, key: string, query = '') =>
    fetch(`${server.url}${path}${query}`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(dogJpeg()) });

  it('REST: POST /api/v1/<task> and the legacy /api/<task>, its parameters from the query string; a key of another task is refused', async () => {
    for (const path of [`/api/v1/${WHOLE_IMAGE_TYPE}`, `/api/${WHOLE_IMAGE_TYPE}`]) {
      const answer = await post(path, apiKey, '?Label=dog%20photo');
      expect(answer.status, path).to.equal(200);
      expect(((await answer.json()) as { detected_faces: unknown[] }).detected_faces, path).to.deep.equal([WHOLE_DOG]);
    }
    const other = await post(`/api/v1/${WHOLE_IMAGE_TYPE}`, server.apiKey);
    expect(other.status).to.equal(403);
    expect(((await post(`/api/v1/${TASK_DESCRIPTIONS.all[0].type}`, apiKey)) as Response).status, 'its key on the first task').to.equal(403);
  });

  it('JSON stream: /api/v1/<task>/stream with its parameters, results under its answer field with track ids; a stream token of its own', async () => {
    const client = await StreamClient.open(`${server.url.replace(/^http/, 'ws')}/api/v1/${WHOLE_IMAGE_TYPE}/stream`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    client.sendJson({ type: 'start', configurations: [{ parameter: 'Label', value: 'dog photo' }] });
    client.sendFrame(dogJpeg(), 'one');
    const [result] = (await client.waitFor((messages) => messages.some((message) => message.type === 'result'))).filter((message) => message.type === 'result');
    expect(result.detected_faces).to.deep.equal([{ ...WHOLE_DOG, track_id: 1 }]);
    expect(result).to.not.have.property('detected_objects');
    expect(new SchemaCatalogue().check('stream-server-message', result)).to.deep.equal({ ok: true });
    await client.close();

    const tokenAnswer = await fetch(`${server.url}/api/v1/${WHOLE_IMAGE_TYPE}/stream-tokens`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` } });
    expect(tokenAnswer.status).to.equal(201);
    const { token, stream_path: streamPath } = (await tokenAnswer.json()) as { token: string; stream_path: string };
    expect(streamPath).to.equal(`/api/v1/${WHOLE_IMAGE_TYPE}/stream`);
    // A token opens its own task's stream only.
    const elsewhere = await refusedUpgrade(`${server.url.replace(/^http/, 'ws')}/api/v1/${TASK_DESCRIPTIONS.all[0].type}/stream?token=${encodeURIComponent(token)}`);
    expect(elsewhere.status).to.equal(403);
  });

  it('Nvision stream: an upgrade of /api/v1/<task> with the key as subprotocol, what was found in the protobuf field the task names', async () => {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/${WHOLE_IMAGE_TYPE}`, apiKey);
    const messages: NvisionMessage[] = [];
    socket.on('message', (data) => void messages.push(decodeNvisionMessage(data as Buffer)));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(encodeNvisionMessage({ frame_id: 'n1', raw_data: dogJpeg(), configurations: [{ parameter: 'Label', value: 'dog photo' }] }));
    const [message] = await waitFor(() => messages.length > 0 && messages, { what: 'the Nvision answer' });
    expect(message.detected_faces?.map(({ name, bounding_box }) => ({ name, bounding_box }))).to.deep.equal([{ name: WHOLE_DOG.name, bounding_box: WHOLE_DOG.bounding_box }]);
    expect(message.detected_objects).to.deep.equal([]);
    socket.close();
  });

  it('OpenAPI: its REST, stream and stream-token operations are in /openapi.json', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.paths[`/api/v1/${WHOLE_IMAGE_TYPE}`].post.operationId).to.equal(`${WHOLE_IMAGE_TYPE}-v1`);
    expect(document.paths[`/api/${WHOLE_IMAGE_TYPE}`].post.operationId).to.equal(`${WHOLE_IMAGE_TYPE}-legacy`);
    expect(document.paths[`/api/v1/${WHOLE_IMAGE_TYPE}`].get.operationId, 'the Nvision stream').to.equal(`${WHOLE_IMAGE_TYPE}-openNvisionStream`);
    expect(document.paths[`/api/v1/${WHOLE_IMAGE_TYPE}/stream`].get.operationId).to.equal(`${WHOLE_IMAGE_TYPE}-openVideoStream`);
    expect(document.paths[`/api/v1/${WHOLE_IMAGE_TYPE}/stream-tokens`].post.operationId).to.equal(`${WHOLE_IMAGE_TYPE}-createStreamToken`);
  });

  it('console: the new-service form offers its type; a service of it is created there and its overview shows how to call its endpoint', async () => {
    const client = new ConsoleClient(server.url);
    expect((await client.signUp('second-task@example.com', 'a long passphrase')).status).to.equal(303);
    const form = await client.get('/console/services/new');
    expect(form.text).to.contain(`<option value="${WHOLE_IMAGE_TYPE}"`);
    const created = await client.post('/console/services', { name: 'whole images', type: WHOLE_IMAGE_TYPE });
    expect(created.status, created.text.slice(0, 300)).to.equal(303);
    const overview = await client.get(created.location!);
    expect(overview.status).to.equal(200);
    expect(overview.text, 'the Call it card, with the task\'s example call').to.contain('id="call-it"').and.contain(`/api/v1/${WHOLE_IMAGE_TYPE}`);
  });
});
