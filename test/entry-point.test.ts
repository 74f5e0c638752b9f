import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConsoleClient } from './support/console-client.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { requireBuild, type ServerProcess, startProcess } from './support/processes.js';

describe('entry point: the server address, the start-up log, and a server with no account yet', () => {
  let dataDir: string;
  let server: ServerProcess | undefined;

  beforeEach(() => {
    requireBuild();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-entry-'));
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs the console and docs addresses, sends / to the console, and opens a new server on its first sign-up', async () => {
    server = await startProcess({ ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' });
    const entries = server.output.map((line) => (line.startsWith('{') ? JSON.parse(line) : {}));
    expect(entries.find((entry) => entry.msg === 'listening')).to.include({ console: `${server.url}/console`, docs: `${server.url}/docs` });
    // JPEGs take libjpeg-turbo's scaled decode here (the library @julusian/jpeg-turbo ships), and the log says so.
    expect(entries.find((entry) => entry.msg === 'JPEG decoder')?.jpeg_decoder).to.match(/^libjpeg-turbo \(.*libturbojpeg/);

    const root = await fetch(server.url + '/', { redirect: 'manual' });
    expect(root.status).to.equal(303);
    expect(root.headers.get('location')).to.equal('/console');

    // No account on this server: its console opens on the sign-up of the first account (the administrator).
    const visitor = new ConsoleClient(server.url);
    expect((await visitor.get('/console')).location).to.equal('/console/sign-up');
    const signUp = await visitor.get('/console/sign-up');
    expect(signUp.status).to.equal(200);
    expect((await visitor.post('/console/sign-up', { email: 'first@example.com', password: 'a long passphrase' })).status).to.equal(303);

    // Once an account exists, a visitor who is not signed in is sent to sign in.
    expect((await new ConsoleClient(server.url).get('/console')).location).to.equal('/console/sign-in');
  });

  it('names DETECTD_PUBLIC_URL in the log when the server is reached at another address', async () => {
    server = await startProcess({ ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1', DETECTD_PUBLIC_URL: 'https://detectd.example.com/' });
    const listening = server.output.map((line) => (line.startsWith('{') ? JSON.parse(line) : {})).find((entry) => entry.msg === 'listening');
    expect(listening).to.include({ console: 'https://detectd.example.com/console', docs: 'https://detectd.example.com/docs' });
  });
});
