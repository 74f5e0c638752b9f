import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { dogJpeg } from './support/images.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, cliOk, requireBuild, type ServerProcess, startProcess } from './support/processes.js';
import { waitFor } from './support/wait-for.js';

/** The server's idle period (IDLE_COLLECTION_MS in server.ts). */
const IDLE_MS = 2_000;

interface LogLine {
  readonly msg: string;
  readonly path?: string;
  /** ISO 8601 (the server's logger: pino's isoTime). */
  readonly time: string;
  readonly heap_used_mb_before?: number;
  readonly heap_used_mb_after?: number;
}

/**
 * The server in a process of its own, whose log says when it collected: whatever else V8 or
 * mocha do in the test's process cannot change what the test sees.
 */
describe('memory at rest: the server collects what its last images left once calls stop (server process)', () => {
  let dataDir: string;
  let server: ServerProcess;
  let apiKey: string;
  const logLines = () =>
    server.output
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const collections = () => logLines().filter((line) => line.msg === 'idle collection');

  before(async () => {
    requireBuild();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-idle-'));
    const env = { ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' };
    cliOk(['account', 'create', '--email', 'idle@example.com', '--password', 'a long passphrase'], env);
    const created = cli(['service', 'create', '--account', 'idle@example.com', '--name', 'idle', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    apiKey = (JSON.parse(created.stdout) as { api_key: string }).api_key;
    server = await startProcess(env);
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('collects once after the last of several calls, and not again while it stays idle', async () => {
    const body = imageRequest(dogJpeg(), { OutputCroppedImage: 'true', OutputVisualizedImage: 'true' });
    // Calls closer together than the idle period postpone the collection: it comes after the last.
    // (On a machine so slow that a call takes longer, one may come between calls too: not counted.)
    for (let i = 0; i < 3; i++) expect((await postDetection(server.url, body, { apiKey })).status).to.equal(200);
    // Times are the server's own log times: when the last call ended there, and when it collected.
    const calls = () => logLines().filter((line) => line.msg === 'call' && line.path === '/api/v1/object-detection');
    const lastCall = (await waitFor(() => calls().length === 3 && calls(), { what: "the three calls' log lines" })).at(-1)!;
    const sinceLastCall = () => collections().filter((line) => line.time >= lastCall.time);
    const [collection] = await waitFor(() => sinceLastCall().length > 0 && sinceLastCall(), { what: 'the "idle collection" log line after the last call' });
    expect(collection.heap_used_mb_after).to.be.a('number').and.at.most(collection.heap_used_mb_before!);
    // Nothing reschedules it: the server is stopped once another idle period has passed since its
    // collection (on the clock its log uses). It stops its collector only after draining, so a
    // collection due by then, however late a loaded machine ran the server, is in its log.
    const quietUntil = Date.parse(collection.time) + IDLE_MS + 500;
    await waitFor(() => Date.now() >= quietUntil, { what: 'an idle period after the collection' });
    expect(await server.stop()).to.equal(0);
    expect(logLines().at(-1)?.msg, 'drained and stopped').to.equal('stopped');
    expect(sinceLastCall(), 'one collection per idle spell').to.have.length(1);
  });
});
