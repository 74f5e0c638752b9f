import net from 'node:net';
import { expect } from 'chai';
import { KEEP_ALIVE_TIMEOUT_MS } from '../src/transports/http/http-server.js';
import { imageRequest } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { head, rawExchange } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Longer than Node's own keep-alive (5 s), which closed connections that clients still held in their pools. */
const IDLE_SECONDS = 6;

describe('keep-alive: a client lets go of an idle connection before the server does', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => await server?.close());

  it(`keeps an idle connection open for the next request past ${IDLE_SECONDS} s, and tells clients how long in Keep-Alive`, async () => {
    const answer = await rawExchange(Number(new URL(server.url).port), [head('GET /healthz HTTP/1.1', { Host: 'x' })], { closeWithinMs: IDLE_SECONDS * 1000 });
    expect(answer.status).to.equal(200);
    expect(answer.headers['keep-alive']).to.equal(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    expect(answer.closed, 'still open after the idle wait').to.equal(false);
  });

  it('closes a connection whose answer was in flight when the server began to close once the answer is sent, without waiting out the keep-alive', async () => {
    const closing = await startTestServer();
    const apiKey = await closing.createService();
    const socket = net.connect(Number(new URL(closing.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const interimAnswer = new Promise<void>((resolve) => {
      const check = () => /^HTTP\/1\.1 100 /.test(received) && (socket.off('data', check), resolve());
      socket.on('data', check);
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const body = JSON.stringify(imageRequest(photoPath('dog.jpg')));
    socket.write(head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json', 'Content-Length': body.length, Expect: '100-continue' }));
    // Answered 100 Continue: the server is reading this request, so it is no idle connection closed at once.
    await interimAnswer;
    const stopped = closing.close();
    socket.write(body);
    // Mocha's time limit (60 s) is shorter than the keep-alive: a connection left to idle out fails the test.
    await Promise.all([closed, stopped]);
    expect(received).to.match(/\r\n\r\nHTTP\/1\.1 200 /);
  });
});
