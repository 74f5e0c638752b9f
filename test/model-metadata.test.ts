import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { COCO_LABELS } from '../src/models/coco-categories.js';
import { readOnnxFile } from '../src/models/runtimes/onnx/onnx-file.js';
import { parsePythonNameDict } from '../src/models/runtimes/onnx/ultralytics-metadata.js';
import { loadOnnxDetector } from '../src/models/runtimes/onnx/onnx-detector.js';
import { modelPath } from './support/paths.js';
import { pythonNames, type SyntheticModel, writeSyntheticOnnx } from './support/synthetic-onnx.js';
import { OriginalWorker, useWorkerClass } from './support/worker-threads.js';

const SETTINGS = { threads: 1, concurrency: 1, nmsIou: 0.7 };
const THREE = ['cat', 'dog', 'forklift'];
/** An Ultralytics-style detector of three classes: output [1, 4 + 3, 84]. */
const DETECTOR: SyntheticModel = { inputSize: 64, outputShape: [1, 7, 84], metadata: { task: 'detect', names: pythonNames(THREE), imgsz: '[64, 64]', stride: '32' } };

describe('ONNX model metadata', () => {
  let folder: string;
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-metadata-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  /** Writes a synthetic model (and its configuration file, when given) and loads it; the refusal's message when refused. */
  async function load(model: SyntheticModel, configuration?: object, settings = SETTINGS): Promise<Awaited<ReturnType<typeof loadOnnxDetector>> | string> {
    const file = path.join(folder, 'custom.onnx');
    writeSyntheticOnnx(file, model);
    if (configuration) fs.writeFileSync(path.join(folder, 'custom.json'), JSON.stringify(configuration));
    try {
      return await loadOnnxDetector(file, settings);
    } catch (error) {
      return (error as Error).message;
    }
  }

  it('reads names, imgsz, task and stride from every Ultralytics export in ../shared/models, and the declared shapes', async () => {
    for (const [name, size, output] of [
      ['yolo11n-320-int8', 320, [1, 84, 2100]],
      ['yolo11n-640-int8', 640, [1, 84, 8400]],
      ['yolov8n-640-int8', 640, [1, 84, 8400]],
      ['yolo26n-640-int8', 640, [1, 300, 6]],
      ['yolov10n-640-int8', 640, [1, 300, 6]],
    ] as const) {
      const summary = await readOnnxFile(modelPath(name));
      expect(summary.metadata.get('task'), name).to.equal('detect');
      expect(summary.metadata.get('stride')).to.equal('32');
      expect(summary.metadata.get('imgsz')).to.equal(`[${size}, ${size}]`);
      expect(parsePythonNameDict(summary.metadata.get('names')!)).to.deep.equal(COCO_LABELS);
      expect(summary.inputs).to.deep.equal([{ name: 'images', shape: [1, 3, size, size] }]);
      expect(summary.outputs).to.deep.equal([{ name: 'output0', shape: output }]);
    }
    const yolox = await readOnnxFile(modelPath('yolox-nano-416'));
    expect(yolox.metadata.size).to.equal(0);
    expect(yolox.outputs).to.deep.equal([{ name: 'output', shape: [1, 3549, 85] }]);
  });

  it('finds metadata stored after megabytes of weights, and symbolic dimensions', async () => {
    const file = path.join(folder, 'heavy.onnx');
    writeSyntheticOnnx(file, { ...DETECTOR, inputSize: 'size', weightBytes: 8 * 1024 * 1024 });
    const summary = await readOnnxFile(file);
    expect(Object.fromEntries(summary.metadata)).to.deep.equal(DETECTOR.metadata);
    expect(summary.inputs[0].shape).to.deep.equal([1, 3, 'size', 'size']);
  });

  it('parses Python dict literals of class names, quotes and escapes included, and refuses gaps', () => {
    expect(parsePythonNameDict(`{0: 'person', 1: "it's", 2: 'back\\\\slash', 3: 'caf\\xe9'}`)).to.deep.equal(['person', "it's", 'back\\slash', 'café']);
    expect(parsePythonNameDict('{}')).to.deep.equal([]);
    expect(() => parsePythonNameDict("{0: 'a', 2: 'b'}")).to.throw('class indexes must run 0, 1, 2, … without gaps; found 2 where 1 was due');
    expect(() => parsePythonNameDict("['a', 'b']")).to.throw('"names" is not a Python dict of class names');
    expect(() => parsePythonNameDict("{0: 'a'")).to.throw('expected "," or "}"');
  });

  it('labels a custom model from its metadata; the configuration file overrides labels and adds parents and settings', async () => {
    const fromMetadata = await load(DETECTOR);
    if (typeof fromMetadata === 'string') throw new Error(fromMetadata);
    expect(fromMetadata).to.deep.include({ name: 'custom', family: 'ultralytics', labels: THREE, parents: ['animal', 'animal', 'object'], labelSource: 'metadata' });
    expect(fromMetadata.inputSize).to.deep.equal({ width: 64, height: 64 });
    await fromMetadata.dispose();

    const configured = await load(DETECTOR, { labels: ['tabby', 'terrier', 'forklift'], parents: { forklift: 'vehicle', tabby: 'pet' }, threads: 1, concurrency: 2, nmsIou: 0.5 });
    if (typeof configured === 'string') throw new Error(configured);
    expect(configured).to.deep.include({ labels: ['tabby', 'terrier', 'forklift'], parents: ['pet', 'object', 'vehicle'], labelSource: 'configuration' });
    expect(configured.settings).to.deep.equal({ threads: 1, concurrency: 2, nmsIou: 0.5 });
    expect(configured.capacity).to.deep.equal({ inputs: 3, runs: 2 });
    await configured.dispose();

    const dynamic = await load({ ...DETECTOR, inputSize: 'size', metadata: { ...DETECTOR.metadata, imgsz: '[96, 96]' } });
    if (typeof dynamic === 'string') throw new Error(dynamic);
    expect(dynamic.inputSize, 'a dynamic input takes imgsz').to.deep.equal({ width: 96, height: 96 });
    await dynamic.dispose();

    const wide = await load({ ...DETECTOR, inputSize: 'size', metadata: { ...DETECTOR.metadata, imgsz: '[96, 128]' } });
    if (typeof wide === 'string') throw new Error(wide);
    expect(wide.inputSize, 'imgsz is [height, width]').to.deep.equal({ width: 128, height: 96 });
    await wide.dispose();
  });

  it('refuses, and says why: other tasks, label counts that do not match the output, contradicting sizes, unreadable files', async () => {
    const file = path.join(folder, 'custom.onnx');
    const refusals: [SyntheticModel, object | undefined, string][] = [
      [{ ...DETECTOR, metadata: { ...DETECTOR.metadata, task: 'segment' } }, undefined, 'its metadata says task "segment", and detectd serves detectors only (task "detect")'],
      [{ ...DETECTOR, metadata: { ...DETECTOR.metadata, task: 'pose' } }, { labels: THREE }, 'its metadata says task "pose"'],
      [{ ...DETECTOR, metadata: { ...DETECTOR.metadata, names: pythonNames(['cat', 'dog']) } }, undefined, 'its output [1, 7, 84] scores 3 classes, but its metadata "names" has 2'],
      [DETECTOR, { labels: ['one'] }, 'its output [1, 7, 84] scores 3 classes, but its custom.json "labels" has 1'],
      [{ inputSize: 64, outputShape: [1, 7, 84] }, undefined, 'its output [1, 7, 84] scores 3 classes and the model names none; list them as "labels" in custom.json'],
      [{ ...DETECTOR, metadata: { ...DETECTOR.metadata, imgsz: '[640, 640]' } }, undefined, "its metadata says imgsz [640, 640], but the model's input is 64×64"],
      [DETECTOR, { inputSize: 320 }, "its configuration says inputSize 320, but the model's input is 64×64"],
      [{ ...DETECTOR, inputSize: { width: 128, height: 96 } }, { inputSize: 96 }, "its configuration says inputSize 96, but the model's input is 128×96"],
      [{ ...DETECTOR, inputSize: 80 }, { inputSize: 80 }, "its metadata says imgsz [64, 64], but the model's input is 80×80"],
      [{ ...DETECTOR, inputSize: 'size', metadata: { ...DETECTOR.metadata, imgsz: '[80, 80]' } }, undefined, "its input 80×80 is not a multiple of the model's stride 32"],
      [{ ...DETECTOR, inputSize: { width: 64, height: 48 }, metadata: { ...DETECTOR.metadata, imgsz: '[48, 64]' } }, undefined, "its input 64×48 is not a multiple of the model's stride 32"],
      [{ ...DETECTOR, metadata: { ...DETECTOR.metadata, names: '[cat, dog]' } }, undefined, 'its Ultralytics metadata is unreadable: "names" is not a Python dict of class names'],
      [{ inputSize: 64, outputShape: [1, 2, 3, 4] }, { labels: THREE }, 'cannot tell the family of a model with output [1, 2, 3, 4]; name one of end-to-end, ultralytics, yolox as "family" in custom.json'],
      [DETECTOR, { labels: THREE, colour: 'red' }, 'custom.json: unknown setting "colour" (known: family, role, inputSize, labels'],
      [DETECTOR, { threads: 0 }, '"threads" must be >= 1: an integer in [1, 256]'],
      [DETECTOR, { aliases: ['general', 'general'] }, '"aliases" must NOT have duplicate items'],
      [DETECTOR, { aliases: ['no spaces'] }, '"aliases" must match pattern'],
      [DETECTOR, [] as object, 'custom.json: expected a JSON object'],
    ];
    for (const [model, configuration, reason] of refusals) {
      fs.rmSync(path.join(folder, 'custom.json'), { force: true });
      const outcome = await load(model, configuration);
      expect(outcome, reason).to.be.a('string').and.contain(`cannot serve ${file}: `).and.contain(reason);
    }
    fs.rmSync(path.join(folder, 'custom.json'), { force: true });
    fs.writeFileSync(file, 'this is not a model at all, just text that goes on for a while');
    expect(await loadOnnxDetector(file, SETTINGS).catch((error: Error) => error.message)).to.contain(`cannot serve ${file}: `).and.contain('is not a readable ONNX model');
  });

  describe('a model ONNX Runtime cannot open', () => {
    /** Worker threads started and not yet exited. */
    let running = 0;
    useWorkerClass(
      class CountedWorker extends OriginalWorker {
        constructor(...args: ConstructorParameters<typeof OriginalWorker>) {
          super(...args);
          running++;
          this.once('exit', () => running--);
        }
      },
    );

    it('is refused in ONNX Runtime\'s words once every worker that tried has stopped', async () => {
      const outcome = await load({ ...DETECTOR, opType: 'NoSuchOperator' }, undefined, { ...SETTINGS, threads: 2, concurrency: 2 });
      expect(outcome).to.be.a('string').and.contain(`cannot serve ${path.join(folder, 'custom.onnx')}: `).and.contain('NoSuchOperator');
      expect(running).to.equal(0);
    });
  });
});
