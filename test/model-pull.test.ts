import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { EMBEDDED_FACE_MODEL_PATH, EMBEDDED_MODEL_FILE } from '../src/models/embedded-model.js';
import { modelFiles } from '../src/models/load-models.js';
import { catalogueModel, MODEL_CATALOGUE } from '../src/models/model-catalogue.js';
import { sha256Of } from './support/embedded-models.js';
import { MODELS_DIR } from './support/paths.js';
import { CLI, cliAsync, cliAsyncOk, requireBuild } from './support/processes.js';
import { waitFor } from './support/wait-for.js';

/**
 * A mirror of the catalogue's files as DETECTD_MODELS_MIRROR reaches one: ../shared/models served
 * over HTTP with Range requests, which a test can make misbehave per path.
 */
class Mirror {
  readonly requests: { path: string; range: string | undefined }[] = [];
  /** Path → how many more responses to cut after half their body. */
  readonly cuts = new Map<string, number>();
  /** Path → the file served in its place. */
  readonly substitutes = new Map<string, string>();
  /** Paths served with one byte changed. */
  readonly corrupted = new Set<string>();
  /** Resolved before a resuming (Range) request is answered, when set. */
  resumeGate: Promise<void> | undefined;
  readonly #server = http.createServer((request, response) => void this.#answer(request, response));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/models`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const wanted = decodeURIComponent(new URL(request.url!, 'http://mirror').pathname).replace(/^\/models\//, '');
    this.requests.push({ path: wanted, range: request.headers.range });
    const file = path.join(MODELS_DIR, this.substitutes.get(wanted) ?? wanted);
    if (wanted.includes('..') || !fs.existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    const bytes = fs.readFileSync(file);
    if (this.corrupted.has(wanted)) bytes[bytes.length >> 1] ^= 1;
    const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    if (start > 0) {
      await this.resumeGate;
      response.writeHead(206, { 'Content-Range': `bytes ${start}-${bytes.length - 1}/${bytes.length}`, 'Content-Length': bytes.length - start });
    } else {
      response.writeHead(200, { 'Content-Length': bytes.length });
    }
    const body = bytes.subarray(start);
    const cuts = this.cuts.get(wanted) ?? 0;
    if (cuts === 0) {
      response.end(body);
      return;
    }
    this.cuts.set(wanted, cuts - 1);
    // Half the body, then the connection drops, as a flaky link does.
    response.write(body.subarray(0, body.length >> 1), () => response.destroy());
  }
}

/** A local port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a command to its end without blocking this process (the mirror answers from it): its status and everything it printed. */
function run(command: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}


describe('`detectd models pull`: the catalogue, downloaded verified and whole into the models folder', function () {
  this.timeout(60_000);
  const mirror = new Mirror();
  let mirrorUrl: string;
  let folder: string;
  let env: NodeJS.ProcessEnv;
  const pull = (args: string[], extra: NodeJS.ProcessEnv = {}) => cliAsync(['models', 'pull', ...args], { ...env, ...extra }, folder);
  const modelsFolder = () => path.join(folder, 'models');
  const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

  before(async () => {
    requireBuild();
    mirrorUrl = await mirror.start();
  });
  after(() => mirror.close());
  beforeEach(() => {
    // A fresh folder to run in: its ./models is the default models folder, empty at first.
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pull-'));
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, DETECTD_MODELS_MIRROR: _mirror, ...inherited } = process.env;
    env = { ...inherited, DETECTD_MODELS_MIRROR: mirrorUrl };
    mirror.requests.length = 0;
    mirror.cuts.clear();
    mirror.substitutes.clear();
    mirror.corrupted.clear();
    mirror.resumeGate = undefined;
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('--list prints every model of the catalogue with its kind, license, accuracy and speed; AGPL ones say what the license asks', async () => {
    const human = await pull(['--list']);
    expect(human.status, human.stderr).to.equal(0);
    for (const model of MODEL_CATALOGUE) expect(human.stdout).to.contain(`${model.name}  (${model.kind}, `).and.contain(model.accuracy);
    expect(human.stdout).to.contain('yolo26n-640-int8  (objects, 2.9 MB, AGPL-3.0, made from its upstream int8 file on download)');
    expect(human.stdout).to.contain('yolox-nano-416  (objects, 3.7 MB, Apache-2.0)');
    const { models } = JSON.parse((await pull(['--list', '--json'])).stdout) as { models: { name: string; license: string; license_obligation: string | null; sha256: string }[] };
    expect(models.map((model) => model.name)).to.deep.equal(MODEL_CATALOGUE.map((model) => model.name));
    for (const model of models) expect(model.license_obligation !== null, model.name).to.equal(model.license === 'AGPL-3.0');
    expect(models.find((model) => model.name === 'ultraface-rfb-640')).to.deep.include({ license: 'MIT', sha256: catalogueModel('ultraface-rfb-640')!.sha256 });
  });

  it('pulls a model from the mirror into ./models, where the server finds it; a second pull finds it there', async () => {
    const listed = async () => JSON.parse((await cliAsyncOk(['models', 'list', '--json'], env, folder)).stdout).models.map((model: { file: string; embedded: boolean }) => [model.file, model.embedded]);
    // Nothing configured: the embedded model, as `npm start` here would serve it.
    expect(await listed()).to.deep.equal([[EMBEDDED_MODEL_FILE, true], [EMBEDDED_FACE_MODEL_PATH, true]]);
    const first = await pull(['yolox-nano-416']);
    expect(first.status, first.stderr).to.equal(0);
    const file = path.join(modelsFolder(), 'yolox-nano-416.onnx');
    expect(first.stderr).to.contain('yolox-nano-416: license Apache-2.0 (https://www.apache.org/licenses/LICENSE-2.0)');
    expect(first.stdout).to.contain(`yolox-nano-416 downloaded from ${mirrorUrl}/yolox-nano-416.onnx into ${file} (sha256 verified)`);
    expect(filesIn(modelsFolder())).to.deep.equal(['yolox-nano-416.onnx']);
    expect(sha256Of(file)).to.equal(catalogueModel('yolox-nano-416')!.sha256);
    // `models list` in this folder reads the settings as the server does: the pulled model is served, not the embedded one.
    expect(await listed()).to.deep.equal([[file, false], [EMBEDDED_FACE_MODEL_PATH, true]]);

    const again = await pull(['yolox-nano-416', '--json']);
    expect(JSON.parse(again.stdout)).to.deep.include({ model: 'yolox-nano-416', file, downloaded: false });
    expect(mirror.requests, 'the second pull downloads nothing').to.have.length(1);

    // A face model lands beside it; DETECTD_MODELS_DIR chooses another folder.
    const elsewhere = path.join(folder, 'elsewhere');
    const face = await pull(['ultraface-rfb-320', '--json'], { DETECTD_MODELS_DIR: elsewhere });
    expect(face.status, face.stderr).to.equal(0);
    expect(JSON.parse(face.stdout)).to.deep.include({ kind: 'faces', file: path.join(elsewhere, 'ultraface-rfb-320.onnx'), downloaded: true });
    expect(mirror.requests.at(-1)!.path).to.equal('faces/ultraface-rfb-320.onnx');
  });

  it('pulls a plate reader with the configuration its family reads beside it, each verified', async () => {
    const reader = catalogueModel('cct_xs_v2_global')!;
    const [config] = reader.companions!;
    const pulled = await pull(['cct_xs_v2_global', '--json']);
    expect(pulled.status, pulled.stderr).to.equal(0);
    const file = path.join(modelsFolder(), 'cct_xs_v2_global.onnx');
    const beside = path.join(modelsFolder(), config.file);
    expect(JSON.parse(pulled.stdout)).to.deep.include({ model: 'cct_xs_v2_global', kind: 'plate-text', file, downloaded: true, companions: [path.join(modelsFolder(), 'cct_xs_v2_global.json'), beside] });
    expect(filesIn(modelsFolder())).to.deep.equal(['cct_xs_v2_global.json', 'cct_xs_v2_global.onnx', 'cct_xs_v2_global_plate_config.yaml']);
    expect(sha256Of(file)).to.equal(reader.sha256);
    expect(sha256Of(beside)).to.equal(config.sha256);
    expect(mirror.requests.map((request) => request.path)).to.deep.equal(['plates/cct_xs_v2_global_plate_config.yaml', 'plates/cct_xs_v2_global.onnx']);

    // A configuration lost since is fetched again, the model left as it is.
    fs.rmSync(beside);
    const again = await pull(['cct_xs_v2_global', '--json']);
    expect(JSON.parse(again.stdout)).to.deep.include({ downloaded: false, companions: [beside] });
    expect(sha256Of(beside)).to.equal(config.sha256);
  });

  it('pulls the plate detector with its configuration declaring its kind and family (its shape cannot tell them), an operator\'s own left as it is', async () => {
    const name = 'yolo-v9-t-416-license-plates-end2end-int8';
    const sidecar = path.join(modelsFolder(), `${name}.json`);
    const pulled = await pull([name, '--json']);
    expect(pulled.status, pulled.stderr).to.equal(0);
    expect(JSON.parse(pulled.stdout)).to.deep.include({ model: name, kind: 'plates', downloaded: true, companions: [sidecar] });
    expect(JSON.parse(fs.readFileSync(sidecar, 'utf8'))).to.deep.equal({ kind: 'plates', family: 'yolo-plates-end2end' });

    const own = { kind: 'plates', family: 'yolo-plates-end2end', threads: 1 };
    fs.writeFileSync(sidecar, JSON.stringify(own));
    const again = await pull([name, '--json']);
    expect(JSON.parse(again.stdout)).to.deep.include({ downloaded: false, companions: [] });
    expect(JSON.parse(fs.readFileSync(sidecar, 'utf8'))).to.deep.equal(own);
  });

  it('shows a progress bar on a terminal', async () => {
    // script(1) gives the command a pseudo-terminal, as a person's shell would.
    const command = [process.execPath, CLI, 'models', 'pull', 'ultraface-rfb-320'].map((word) => `'${word}'`).join(' ');
    const { status, output: shown } = await run(['script', '-qec', command, '/dev/null'], env, folder);
    expect(status, shown).to.equal(0);
    expect(shown).to.contain('ultraface-rfb-320 |').and.contain('| 100% | 1.3 MB of 1.3 MB');
    expect(filesIn(modelsFolder())).to.deep.equal(['ultraface-rfb-320.onnx']);
  });

  it('refuses a file whose sha256 or size is not the pinned one, and keeps nothing of it', async () => {
    mirror.corrupted.add('yolox-nano-416.onnx');
    const corrupted = await pull(['yolox-nano-416']);
    expect(corrupted.status, corrupted.stderr).to.equal(1);
    expect(corrupted.stderr).to.match(
      new RegExp(`detectd: yolox-nano-416 was not downloaded, and nothing was kept: ${mirrorUrl}/yolox-nano-416.onnx sent a file whose sha256 is [0-9a-f]{64}, not the pinned ${catalogueModel('yolox-nano-416')!.sha256}: refused\n$`),
    );
    expect(filesIn(modelsFolder())).to.deep.equal([]);

    mirror.substitutes.set('yolox-nano-416.onnx', 'faces/ultraface-rfb-640.onnx');
    const other = await pull(['yolox-nano-416']);
    expect(other.status, other.stderr).to.equal(1);
    expect(other.stderr).to.contain(`nothing was kept: ${mirrorUrl}/yolox-nano-416.onnx sent a file of 1588012 bytes, not the 3660092 of the pinned file: refused`);
    expect(mirror.requests, 'a wrong file is not asked for again').to.have.length(2);
    expect(filesIn(modelsFolder())).to.deep.equal([]);

    // Nor what the pull put beside the model: the plate reader's configuration and its YAML.
    mirror.corrupted.add('plates/cct_xs_v2_global.onnx');
    const reader = await pull(['cct_xs_v2_global']);
    expect(reader.status, reader.stderr).to.equal(1);
    expect(reader.stderr).to.contain('cct_xs_v2_global was not downloaded, and nothing was kept');
    expect(filesIn(modelsFolder())).to.deep.equal([]);
  });

  it('resumes a download whose connection dropped, and never shows the server a half-written model', async () => {
    mirror.cuts.set('faces/ultraface-rfb-640.onnx', 1);
    let releaseResume!: () => void;
    mirror.resumeGate = new Promise((resolve) => (releaseResume = resolve));
    const pulling = pull(['ultraface-rfb-640']);
    // While the resumed request waits, half the file is on disk under a name no runtime serves.
    const { bytes, sha256 } = catalogueModel('ultraface-rfb-640')!;
    await waitFor(() => mirror.requests.some((request) => request.range !== undefined), { what: 'the resumed (range) request' });
    const [partial] = filesIn(modelsFolder());
    expect(partial).to.match(/^ultraface-rfb-640\.onnx\.\d+\.download$/);
    const kept = fs.statSync(path.join(modelsFolder(), partial)).size;
    expect(kept).to.be.within(1, bytes >> 1);
    expect(await modelFiles({ modelPaths: [], modelsDir: { path: modelsFolder(), required: false } }), 'nothing to serve yet').to.deep.equal([]);
    releaseResume();

    const resumed = await pulling;
    expect(resumed.status, resumed.stderr).to.equal(0);
    expect(resumed.stderr).to.contain(`trying again in 0.5 s, resuming from byte ${kept}`);
    expect(mirror.requests.map((request) => request.range)).to.deep.equal([undefined, `bytes=${kept}-`]);
    expect(filesIn(modelsFolder())).to.deep.equal(['ultraface-rfb-640.onnx']);
    expect(sha256Of(path.join(modelsFolder(), 'ultraface-rfb-640.onnx'))).to.equal(sha256);
  });

  it('gives up on a connection that keeps dropping after three more tries, keeping nothing', async () => {
    mirror.cuts.set('yolox-nano-416.onnx', Infinity);
    const failed = await pull(['yolox-nano-416']);
    expect(failed.status, failed.stderr).to.equal(1);
    expect(mirror.requests).to.have.length(4);
    expect(failed.stderr).to.match(/detectd: yolox-nano-416 was not downloaded, and nothing was kept: the connection to \S+ was lost after \d+ of 3660092 bytes/);
    expect(filesIn(modelsFolder())).to.deep.equal([]);
  });

  it('shows an AGPL license plainly and downloads only once it is accepted', async () => {
    const unaccepted = await pull(['yolo11n-320-int8']);
    expect(unaccepted.status, unaccepted.stderr).to.equal(1);
    expect(unaccepted.stderr).to.contain('yolo11n-320-int8: license AGPL-3.0 (https://www.ultralytics.com/license)\n  AGPL-3.0 (Ultralytics YOLO weights): ');
    expect(unaccepted.stderr).to.contain('detectd: yolo11n-320-int8 is under AGPL-3.0, which was not accepted: run the command again with --accept-license to accept it');
    expect(mirror.requests, 'nothing downloaded before the license is accepted').to.deep.equal([]);

    const accepted = await pull(['yolo11n-320-int8', '--accept-license', '--json']);
    expect(accepted.status, accepted.stderr).to.equal(0);
    expect(JSON.parse(accepted.stdout)).to.deep.include({ model: 'yolo11n-320-int8', license: 'AGPL-3.0', downloaded: true });
  });

  it('docs/models.md: its catalogue table is the catalogue, and each of its sh blocks runs as pasted (against the mirror)', async () => {
    const page = fs.readFileSync('docs/models.md', 'utf8');
    const rows = new Map([...page.matchAll(/^\| `([^`]+)` \| (objects|faces|plates|plate-text) \| ([^|]+) \|.*\| (GitHub|GitHub, re-encoded here) \|$/gm)].map((row) => [row[1], { kind: row[2], license: row[3], download: row[4] }]));
    expect([...rows.keys()]).to.deep.equal(MODEL_CATALOGUE.map((model) => model.name));
    for (const model of MODEL_CATALOGUE) {
      expect(rows.get(model.name), model.name).to.deep.equal({ kind: model.kind, license: model.license.id, download: model.derivedFrom ? 'GitHub, re-encoded here' : 'GitHub' });
    }
    // A block that starts the server (`… npm start`) is run, server and all, by test/pasted-commands.test.ts.
    const blocks = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1].trim()).filter((block) => !/(^|\s)npm start$/.test(block));
    expect(blocks.length).to.be.at.least(3);
    const shellEnv = { ...env, DETECTD_MODELS_DIR: modelsFolder() };
    fs.mkdirSync(modelsFolder());
    for (const block of blocks) {
      const ran = await run(['sh', '-e', '-c', block.replaceAll('https://models.example.com/detectd', mirrorUrl)], shellEnv, process.cwd());
      expect(ran.status, `${block}\n${ran.output}`).to.equal(0);
    }
    expect(filesIn(modelsFolder())).to.deep.equal(['ultraface-rfb-640.onnx', 'yolo26n-640-int8.onnx']);
  });

  it('names the catalogue\u2019s models for an unknown name, and names the mirror setting when the network cannot be reached', async () => {
    const unknown = await pull(['yolo-typo']);
    expect(unknown.status, unknown.stderr).to.equal(1);
    expect(unknown.stderr).to.equal(`detectd: the catalogue has no model named "yolo-typo"; it has: ${MODEL_CATALOGUE.map((model) => model.name).join(', ')} (\`detectd models pull --list\` describes them)\n`);
    // No mirror, and the upstream host unreachable (a port nothing listens on), as on a machine without internet.
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const offline = await pull(['yolo11n-640-int8', '--accept-license'], { DETECTD_MODELS_MIRROR: '', DETECTD_MODELS_RAW_URL: closed });
    expect(offline.status, offline.stderr).to.equal(1);
    expect(offline.stderr.trim().split('\n').at(-1)).to.match(
      new RegExp(`^detectd: yolo11n-640-int8 was not downloaded, and nothing was kept: cannot reach ${closed}/SampersS/yolov11/[0-9a-f]{40}/yolo11n_quantized\\.onnx: .*ECONNREFUSED.*; without internet, set DETECTD_MODELS_MIRROR to the base URL of a mirror of the catalogue's files \\(docs/models\\.md, "Without internet: a mirror"\\)$`),
    );
    const nothing = await pull([]);
    expect(nothing.status, nothing.stderr).to.equal(2);
    expect(filesIn(modelsFolder())).to.deep.equal([]);
  });
});
