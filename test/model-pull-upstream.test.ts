import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import * as ort from 'onnxruntime-node';
import { type CatalogueFile, MODEL_CATALOGUE } from '../src/models/model-catalogue.js';
import { ultralyticsLetterbox } from '../src/models/families/ultralytics-letterbox.js';
import { decodeImage } from '../src/vision/decode.js';
import { letterboxInto } from '../src/vision/letterbox.js';
import { sha256Of } from './support/embedded-models.js';
import { MODELS_DIR, SHARED_DIR } from './support/paths.js';
import { cliAsync, requireBuild } from './support/processes.js';

const GITHUB_RAW = 'https://raw.githubusercontent.com';

/**
 * A stand-in for GitHub's raw file host: each upstream file of the catalogue, at the path of its
 * pinned URL (`/<owner>/<repository>/<commit>/<path>`), served from ../shared/models, where the
 * same bytes are kept; any other path is 404, as upstream answers a path it does not have.
 */
class RawFileHost {
  readonly requests: string[] = [];
  readonly #files = new Map<string, string>();
  readonly #server = http.createServer((request, response) => {
    const wanted = new URL(request.url!, 'http://raw').pathname;
    this.requests.push(wanted);
    const file = this.#files.get(wanted);
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    const bytes = fs.readFileSync(file);
    response.writeHead(200, { 'Content-Length': bytes.length }).end(bytes);
  });

  constructor(files: readonly CatalogueFile[]) {
    for (const file of files) {
      for (const url of file.urls) this.#files.set(url.slice(GITHUB_RAW.length), path.join(MODELS_DIR, file.mirrorPath));
    }
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** Every output of `model` on `photo`, letterboxed as the Ultralytics families are fed. */
async function outputsOn(session: ort.InferenceSession, photo: string): Promise<Float32Array[]> {
  const side = 640;
  const image = await decodeImage(fs.readFileSync(photo), { maxPixels: 50_000_000 });
  const pixels = new Float32Array(3 * side * side);
  letterboxInto(image, ultralyticsLetterbox({ width: side, height: side }), pixels);
  const outputs = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', pixels, [1, 3, side, side]) });
  return session.outputNames.map((name) => outputs[name]!.data as Float32Array);
}

describe('`detectd models pull` with the internet alone: every catalogue model from its upstream repository', function () {
  this.timeout(600_000);
  const upstreamFiles = MODEL_CATALOGUE.flatMap((model) => [model, ...(model.derivedFrom ? [model.derivedFrom] : []), ...(model.companions ?? [])]);
  const host = new RawFileHost(upstreamFiles);
  let folder: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    requireBuild();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-upstream-'));
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, DETECTD_MODELS_MIRROR: _mirror, ...inherited } = process.env;
    // No mirror: the upstream URLs, with the stand-in in place of GitHub's host.
    env = { ...inherited, DETECTD_MODELS_RAW_URL: await host.start() };
  });
  after(async () => {
    await host.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('gives every catalogue model, verified; yolo26n and yolov10n made from the upstream int8 files are the measured files byte for byte', async () => {
    for (const model of MODEL_CATALOGUE) {
      const pulled = await cliAsync(['models', 'pull', model.name, '--accept-license', '--json'], env, folder);
      expect(pulled.status, `${model.name}: ${pulled.stderr}`).to.equal(0);
      const result = JSON.parse(pulled.stdout) as { url: string; derived: boolean; file: string };
      const source = model.derivedFrom ?? model;
      expect(result, model.name).to.deep.include({ derived: model.derivedFrom !== undefined, url: source.urls[0]!.replace(GITHUB_RAW, env.DETECTD_MODELS_RAW_URL!) });
      expect(sha256Of(result.file), model.name).to.equal(model.sha256);
      expect(sha256Of(result.file), model.name).to.equal(sha256Of(path.join(MODELS_DIR, model.mirrorPath)));
      for (const companion of model.companions ?? []) expect(sha256Of(path.join(folder, 'models', companion.file))).to.equal(companion.sha256);
    }
    // Nothing but the models, their configurations and companions: no upstream or half-made file is left.
    const expected = MODEL_CATALOGUE.flatMap((model) => [`${model.name}.onnx`, ...(model.configuration ? [`${model.name}.json`] : []), ...(model.companions ?? []).map((companion) => companion.file)]);
    expect(fs.readdirSync(path.join(folder, 'models')).sort()).to.deep.equal(expected.sort());
    expect(host.requests.every((request) => !request.includes('..')), 'only pinned paths asked for').to.equal(true);
  });

  it('the yolo26n it made gives the outputs of ../shared/models/yolo26n-640-int8.onnx on the shared evaluation photos', async () => {
    const made = path.join(folder, 'models', 'yolo26n-640-int8.onnx');
    if (!fs.existsSync(made)) {
      const pulled = await cliAsync(['models', 'pull', 'yolo26n-640-int8', '--accept-license'], env, folder);
      expect(pulled.status, pulled.stderr).to.equal(0);
    }
    const images = path.join(SHARED_DIR, 'eval', 'coco-val122', 'images');
    const photos = fs.readdirSync(images).sort().slice(0, 4).map((file) => path.join(images, file));
    const [ours, measured] = [await ort.InferenceSession.create(made), await ort.InferenceSession.create(path.join(MODELS_DIR, 'yolo26n-640-int8.onnx'))];
    try {
      for (const photo of photos) {
        const [a, b] = [await outputsOn(ours, photo), await outputsOn(measured, photo)];
        expect(a.length).to.equal(b.length);
        a.forEach((output, index) => expect(Buffer.compare(Buffer.from(output.buffer), Buffer.from(b[index]!.buffer)), path.basename(photo)).to.equal(0));
        // Something was found on the photo, so the comparison covers real detections, not an empty answer.
        expect(a[0]!.some((value, index) => index % 6 === 4 && value > 0.25), path.basename(photo)).to.equal(true);
      }
    } finally {
      await Promise.all([ours.release(), measured.release()]);
    }
  });
});
