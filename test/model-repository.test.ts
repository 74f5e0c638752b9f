import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { COCO_LABELS } from '../src/models/coco-categories.js';
import { startLocalServer } from '../scripts/lib/local-server.js';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { MODELS_DIR, modelPath, photoPath } from './support/paths.js';
import { cli, cliOk, requireBuild, startProcess } from './support/processes.js';
import { pythonNames, writeSyntheticOnnx } from './support/synthetic-onnx.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';

/** yolox-nano-416 with its "dog" renamed "hound" (parent "pet") by its configuration file. */
const HOUND_LABELS = COCO_LABELS.map((label) => (label === 'dog' ? 'hound' : label));
const YOLOX_CONFIG = { labels: HOUND_LABELS, parents: { hound: 'pet' }, threads: 1, concurrency: 2, nmsIou: 0.5 };

describe('model repository (DETECTD_MODELS_DIR)', () => {
  let repository: string;
  const modelsList = (env: Record<string, string>) => cli(['models', 'list', '--json'], { ...process.env, ...env });
  /** What `models list --json` says, of a command that must succeed. */
  const listedModels = (env: Record<string, string>) => JSON.parse(cliOk(['models', 'list', '--json'], { ...process.env, ...env }).stdout);

  before(requireBuild);
  beforeEach(() => {
    repository = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-repository-'));
    for (const name of ['yolo11n-320-int8', 'yolox-nano-416']) fs.symlinkSync(modelPath(name), path.join(repository, `${name}.onnx`));
    fs.writeFileSync(path.join(repository, 'yolox-nano-416.json'), JSON.stringify(YOLOX_CONFIG));
    fs.writeFileSync(path.join(repository, 'README.txt'), 'not a model: ignored');
  });
  afterEach(() => fs.rmSync(repository, { recursive: true, force: true }));

  it('`detectd models list` loads and describes each model of the folder with its configuration', () => {
    const result = modelsList({ DETECTD_MODELS_DIR: repository, DETECTD_INFERENCE_THREADS: '2', DETECTD_INFERENCE_CONCURRENCY: '1' });
    expect(result.status, result.stderr).to.equal(0);
    const { models } = JSON.parse(result.stdout);
    // The folder's models, and the embedded face detector every server loads unless DETECTD_MODEL names a face model.
    expect(models.map((model: { name: string; default: boolean; embedded: boolean }) => [model.name, model.default, model.embedded])).to.deep.equal([
      ['yolo11n-320-int8', true, false],
      ['yolox-nano-416', false, false],
      ['yunet-n', true, true],
    ]);
    expect(models[0]).to.deep.include({ status: 'ok', family: 'ultralytics', input_size: 320, label_source: 'metadata', threads: 2, concurrency: 1, nms_iou: 0.7 });
    expect(models[0].labels).to.deep.equal(COCO_LABELS);
    expect(models[1]).to.deep.include({ status: 'ok', family: 'yolox', input_size: 416, label_source: 'configuration', threads: 1, concurrency: 2, nms_iou: 0.5 });
    expect(models[1].labels).to.deep.equal(HOUND_LABELS);

    // DETECTD_MODEL names the default; the folder's models join it, the same file once.
    const both = listedModels({ DETECTD_MODELS_DIR: repository, DETECTD_MODEL: path.join(repository, 'yolox-nano-416.onnx') });
    expect(both.models.map((model: { name: string }) => model.name)).to.deep.equal(['yolox-nano-416', 'yolo11n-320-int8', 'yunet-n']);
    const human = cliOk(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: repository });
    expect(human.stdout).to.match(/^NAME\s+STATUS\s+FAMILY\s+INPUT\s+LABELS\s+FILE\n/).and.match(/yolo11n-320-int8 \*\s+ok/).and.contain('80 (configuration)');
  });

  it('`detectd models list` stars the default of each kind (the object and the face detector) and says why, when face, plate and reader models sort before the object model in the folder', () => {
    fs.rmSync(path.join(repository, 'yolox-nano-416.onnx'));
    fs.symlinkSync(modelPath('faces/retinaface-mnet025'), path.join(repository, 'retinaface-mnet025.onnx'));
    for (const file of ['cct_xs_v2_global.onnx', 'cct_xs_v2_global_plate_config.yaml']) fs.symlinkSync(path.join(MODELS_DIR, 'plates', file), path.join(repository, file));
    fs.writeFileSync(path.join(repository, 'cct_xs_v2_global.json'), JSON.stringify({ kind: 'plate-text', family: 'fast-plate-ocr' }));
    const result = modelsList({ DETECTD_MODELS_DIR: repository });
    expect(result.status, result.stderr).to.equal(0);
    const { models } = JSON.parse(result.stdout) as { models: { name: string; default: boolean; chosen?: string }[] };
    // A face model of the folder (where a pull puts it) answers the services that name it; the embedded YuNet-n stays the face default.
    expect(models.filter((model) => model.default).map((model) => [model.name, model.chosen])).to.have.deep.members([
      ['yolo11n-320-int8', 'the only object model of the models folder'],
      ['yunet-n', "the embedded model: the models folder's retinaface-mnet025 answers only the services that name it; name a face model in DETECTD_MODEL to make it the default"],
    ]);
    expect(models.map((model) => model.name)).to.include('cct_xs_v2_global').and.include('retinaface-mnet025');
    const human = cliOk(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: repository });
    expect(human.stdout).to.match(/yolo11n-320-int8 \*\s+ok/).and.match(/yunet-n \* \(embedded\)\s+ok/).and.match(/retinaface-mnet025\s+ok/).and.not.contain('cct_xs_v2_global *');
    expect(human.stdout).to.contain("* yunet-n: the embedded model: the models folder's retinaface-mnet025 answers only the services that name it");
    // Named in DETECTD_MODEL, it is the face default.
    const named = listedModels({ DETECTD_MODELS_DIR: repository, DETECTD_MODEL: path.join(repository, 'retinaface-mnet025.onnx') }) as { models: { name: string; default: boolean; chosen?: string }[] };
    expect(named.models.find((model) => model.name === 'retinaface-mnet025')).to.deep.include({ default: true, chosen: 'the first face model DETECTD_MODEL names' });
    expect(named.models.map((model) => model.name)).to.not.include('yunet-n');
  });

  it('serves every model of the folder: readiness, the console\u2019s service form, and per-model labels and parents over HTTP', async () => {
    const server = await startLocalServer({ DETECTD_MODELS_DIR: repository, DETECTD_SIGNUP: 'open', ...TEST_INFERENCE_SETTINGS });
    try {
      // The folder's object models, and the embedded face detector every server loads when no face model is configured.
      expect((await (await fetch(`${server.url}/readyz`)).json()).models).to.deep.equal(['yolo11n-320-int8', 'yolox-nano-416', 'yunet-n', 'mobilenetv2-12-int8-emb', 'dlib-face-recognition-resnet']);
      const apiKey = await server.createService({ name: 'kennel', model: 'yolox-nano-416' });
      const answer = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey });
      expect(answer.status).to.equal(200);
      const names = answer.body.detected_objects.map((object: { name: string; parent: string }) => `${object.name}/${object.parent}`);
      expect(names).to.include('hound/pet').and.include('bicycle/vehicle').and.not.include('dog/animal');

      const browser = new ConsoleClient(server.url);
      await browser.signUp('repository@example.com', 'a long passphrase');
      const form = (await browser.get('/console/services/new')).text;
      expect(form).to.contain('<option value="yolo11n-320-int8"').and.contain('<option value="yolox-nano-416"');
    } finally {
      await server.close();
    }
  });

  it('takes the default model from DETECTD_DEFAULT_MODEL and logs at start-up which is the default and why (a warning when nothing named it)', async () => {
    const chosen = listedModels({ DETECTD_MODELS_DIR: repository, DETECTD_DEFAULT_MODEL: 'yolox-nano-416' });
    expect(chosen.models.map((model: { name: string; default: boolean }) => [model.name, model.default])).to.deep.equal([
      ['yolox-nano-416', true],
      ['yolo11n-320-int8', false],
      ['yunet-n', true],
    ]);
    const misnamed = cli(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: repository, DETECTD_DEFAULT_MODEL: 'yolo26n' });
    expect(misnamed.status, misnamed.stderr).to.equal(3);
    expect(misnamed.stderr).to.equal('detectd: DETECTD_DEFAULT_MODEL is "yolo26n", which is none of the configured object models: yolo11n-320-int8, yolox-nano-416\n');

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-default-model-'));
    const env = { ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODELS_DIR: repository, PORT: '0', HOST: '127.0.0.1' };
    const logged = async (settings: Record<string, string>) => {
      const server = await startProcess({ ...env, ...settings });
      await server.stop();
      return server.output.flatMap((line) => (line.startsWith('{') ? [JSON.parse(line)] : [])).find((entry: { msg: string }) => entry.msg === 'default model');
    };
    try {
      expect(await logged({ DETECTD_DEFAULT_MODEL: 'yolox-nano-416' })).to.deep.include({ level: 30, model: 'yolox-nano-416', chosen: 'named by DETECTD_DEFAULT_MODEL' });
      expect(await logged({})).to.deep.include({
        level: 40,
        model: 'yolo11n-320-int8',
        chosen: 'the first by name of the models folder, as nothing names one: set DETECTD_DEFAULT_MODEL to choose it',
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names each refused model and why: `models list` exits 1, the server does not start', async () => {
    writeSyntheticOnnx(path.join(repository, 'masks.onnx'), { inputSize: 64, outputShape: [1, 39, 84], metadata: { task: 'segment', names: pythonNames(['cell', 'nucleus', 'membrane']) } });
    const result = modelsList({ DETECTD_MODELS_DIR: repository });
    expect(result.status, result.stderr).to.equal(1);
    const masks = JSON.parse(result.stdout).models.find((model: { name: string }) => model.name === 'masks');
    expect(masks).to.deep.include({ status: 'refused', file: path.join(repository, 'masks.onnx') });
    expect(masks.reason).to.contain('its metadata says task "segment", and detectd serves detectors only');
    const human = cli(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: repository });
    expect(human.status, human.stderr).to.equal(1);
    expect(human.stdout).to.contain('refused masks: its metadata says task "segment"');

    const failure = await startLocalServer({ DETECTD_MODELS_DIR: repository }).then(
      async (server) => {
        await server.close();
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(failure).to.contain(`cannot serve ${path.join(repository, 'masks.onnx')}: its metadata says task "segment"`);
  });

  it('explains a folder that cannot serve: missing, or holding no model (exit 3)', () => {
    const missing = cli(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: path.join(repository, 'nowhere') });
    expect(missing.status, missing.stderr).to.equal(3);
    expect(missing.stderr).to.contain(`DETECTD_MODELS_DIR ${path.join(repository, 'nowhere')} cannot be read`);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-empty-'));
    try {
      const result = cli(['models', 'list'], { ...process.env, DETECTD_MODELS_DIR: empty });
      expect(result.status, result.stderr).to.equal(3);
      expect(result.stderr).to.equal(`detectd: DETECTD_MODELS_DIR ${empty} holds no .onnx model file\n`);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
