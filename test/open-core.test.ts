import fs from 'node:fs';
import { expect } from 'chai';
import { schedulerOfService } from '../src/core/service-scheduler.js';
import type { Service } from '../src/core/service.js';
import { DetectdError } from '../src/core/errors.js';
import type { Classifier } from '../src/models/classifier.js';
import type { Embedder } from '../src/models/embedder.js';
import type { ModelStep } from '../src/models/model-step.js';
import { ModelRegistry, OBJECT_DETECTOR } from '../src/models/registry.js';
import type { RoleModel } from '../src/models/role-models.js';
import { loadOnnxModel } from '../src/models/runtimes/onnx/onnx-detector.js';
import type { Detector } from '../src/models/types.js';
import { ModelSchedulers } from '../src/scheduler/model-schedulers.js';
import { TaskTable } from '../src/tasks/task-table.js';
import type { Task } from '../src/tasks/task.js';
import { cropsInto } from '../src/vision/crops.js';
import { decodeImage } from '../src/vision/decode.js';
import type { RgbImage } from '../src/vision/image.js';
import { deepStackRouteTable } from '../src/transports/deepstack/deepstack-route-table.js';
import { RouteClaimedTwice } from '../src/transports/route-ledger.js';
import { loadModels } from '../src/models/load-models.js';
import { FEATURES } from '../src/features/index.js';
import { modelPath } from './support/paths.js';
import { startTestServer } from './support/test-server.js';
import { wholeImageTask } from './support/whole-image-task.js';

const EMBEDDER_FILE = modelPath('embedders/mobilenetv2-12-int8-emb');
const SETTINGS = { threads: 1, concurrency: 1, nmsIou: 0.5 };
const EMBEDDINGS: ModelStep<Embedder> = { role: 'embedder', kind: 'image-embeddings' };
const LABELS: ModelStep<Classifier> = { role: 'classifier', kind: 'gate-states' };

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, k) => sum + value * b[k], 0);

/** What every served model has, for models that never run. */
const served = (name: string) => ({ name, family: 'test', runtime: 'none', device: 'CPU', aliases: [], inputSize: { width: 1, height: 1 }, capacity: { inputs: 2, runs: 1 }, dispose: async () => {} });

/** A task led by `lead`, of any role: routing is what it shows, it analyses nothing. */
const taskLedBy = <Lead extends RoleModel>(type: string, lead: ModelStep<Lead>): Task<void, Lead> => ({
  type,
  lead,
  summary: 'a test task',
  requestSchema: 'object-detection-request',
  responseSchema: 'object-detection-response',
  parameters: {},
  answerField: 'detected_states',
  exampleFields: {},
  parseParameters: () => undefined,
  analyse: () => Promise.reject(new Error('never analysed')),
});

const serviceOf = (type: string, model: string | null): Service => ({
  id: 'service', accountId: 'account', name: 'gate', type, model, createdAt: '', disabled: false,
  keylessAddressRanges: null, rateLimitPerMinute: null, monthlyQuota: null, deepStackMaxPredictions: null,
});

describe('an open core: any model role leads a task', function () {
  this.timeout(120_000);

  describe('the MobileNetV2 embedder family (real model, ../shared/models/embedders)', () => {
    let embedder: Embedder;
    let image: RgbImage;
    before(async () => {
      const loaded = await loadOnnxModel(EMBEDDER_FILE, SETTINGS);
      if (loaded.role !== 'embedder') throw new Error(`loaded as a ${loaded.role}`);
      embedder = loaded;
      image = await decodeImage(fs.readFileSync('assets/photos/dog.jpg'), { maxPixels: 1e8 }, {});
    });
    after(() => embedder?.dispose());

    it('is recognised by its `embedding` output, with no configuration: an embedder of image-embeddings at 224 px, 1,280 values a vector', () => {
      expect({ role: embedder.role, kind: embedder.kind, family: embedder.family, size: embedder.size, input: embedder.inputSize }).to.deep.equal({
        role: 'embedder', kind: 'image-embeddings', family: 'mobilenetv2-embeddings', size: 1280, input: { width: 224, height: 224 },
      });
    });

    it('leads a task: the registry and schedulers route the service to it, and one batch gives a unit vector per region, alike for the same region and less for another', async () => {
      const tasks = new TaskTable([taskLedBy('states', EMBEDDINGS)]);
      // As a server loads its models: the embedder file configured, the embedded object detector beside it.
      const registry = await loadModels({ modelPaths: [EMBEDDER_FILE], modelsDir: undefined }, SETTINGS, () => {}, new Map(), tasks.steps);
      try {
        expect(tasks.modelsFor('states', registry.models)).to.deep.equal(['mobilenetv2-12-int8-emb']);
        const scheduler = schedulerOfService(new ModelSchedulers(registry, { maxAdmitted: 2 }), serviceOf('states', null), EMBEDDINGS);
        const dog = { left: 133, top: 207, right: 326, bottom: 543 };
        const car = { left: 467, top: 78, right: 690, bottom: 171 };
        const { vectors } = await scheduler.run('request', new AbortController().signal, () => scheduler.model.embed(image, [dog, dog, car]));
        expect(vectors).to.have.length(3);
        for (const vector of vectors) expect(Math.hypot(...vector)).to.be.closeTo(1, 1e-5);
        expect(dot(vectors[0], vectors[1])).to.be.closeTo(1, 1e-5);
        expect(dot(vectors[0], vectors[2])).to.be.below(0.9);
      } finally {
        await registry.dispose();
      }
    });

    it('runs at the input size its configuration names (the graph opened with a free input), still a unit vector per region', async () => {
      const small = await loadOnnxModel(EMBEDDER_FILE, SETTINGS, () => {}, { inputSize: 96 });
      try {
        if (small.role !== 'embedder') throw new Error(`loaded as a ${small.role}`);
        expect(small.inputSize).to.deep.equal({ width: 96, height: 96 });
        const { vectors } = await small.embed(image, [{ left: 0, top: 0, right: 60, bottom: 40 }]);
        expect(Math.hypot(...vectors[0])).to.be.closeTo(1, 1e-5);
      } finally {
        await small.dispose();
      }
    });
  });

  it('routes a service of a classifier-led task to a classifier, never to a detector of another step', async () => {
    const detector = { ...served('objects'), role: 'detector', kind: 'objects' } as unknown as Detector;
    const classifier: Classifier = { ...served('gate-classifier'), role: 'classifier', kind: 'gate-states', labels: ['open', 'closed'], classify: async (_image, regions) => regions.map(() => Float32Array.of(0.9, 0.1)) };
    const registry = new ModelRegistry([detector, classifier]);
    const schedulers = new ModelSchedulers(registry, { maxAdmitted: 2 });
    const tasks = new TaskTable([taskLedBy('gate', LABELS), taskLedBy('objects', OBJECT_DETECTOR)]);
    expect(tasks.steps).to.deep.equal([LABELS, OBJECT_DETECTOR]);
    expect(tasks.modelsFor('gate', registry.models)).to.deep.equal(['gate-classifier']);
    const scheduler = schedulerOfService(schedulers, serviceOf('gate', null), LABELS);
    expect(scheduler.model.labels).to.deep.equal(['open', 'closed']);
    expect(schedulerOfService(schedulers, serviceOf('gate', 'gate-classifier'), LABELS).model).to.equal(classifier);
    expect(() => schedulerOfService(schedulers, serviceOf('gate', 'objects'), LABELS))
      .to.throw(DetectdError, 'this service uses model "objects", which this server has not loaded as a classifier of gate-states');
  });

  it('crops any box into any width × height, normalised per channel into planar float32 (NCHW)', () => {
    // A 4×2 image: left half pure red, right half pure blue.
    const data = Buffer.alloc(4 * 2 * 3);
    for (let y = 0; y < 2; y++) for (let x = 0; x < 4; x++) data[(y * 4 + x) * 3 + (x < 2 ? 0 : 2)] = 255;
    const normalise = { scale: 1 / 255, mean: [0.5, 0.25, 0] as const, std: [0.5, 0.25, 2] as const };
    const tensor = new Float32Array(2 * 3 * 2 * 3);
    cropsInto({ width: 4, height: 2, data }, { crops: [{ left: 0, top: 0, right: 2, bottom: 2 }, { left: 2, top: 0, right: 4, bottom: 2 }], width: 3, height: 2, normalise }, tensor);
    const plane = 3 * 2;
    const planes = (crop: number) => [0, 1, 2].map((c) => [...tensor.subarray(crop * 3 * plane + c * plane, crop * 3 * plane + (c + 1) * plane)]);
    // Red crop: R (1 − 0.5) / 0.5 = 1, G (0 − 0.25) / 0.25 = −1, B (0 − 0) / 2 = 0; blue crop: R −1, G −1, B 0.5.
    expect(planes(0)).to.deep.equal([Array(plane).fill(1), Array(plane).fill(-1), Array(plane).fill(0)]);
    expect(planes(1)).to.deep.equal([Array(plane).fill(-1), Array(plane).fill(-1), Array(plane).fill(0.5)]);
    expect(() => cropsInto({ width: 4, height: 2, data }, { crops: [{ left: 0, top: 0, right: 2, bottom: 2 }], width: 3, height: 2, normalise }, new Uint8Array(18))).to.throw(TypeError);
  });

  it('stops at a route claimed twice, naming the route and both owners (two tasks with one verb)', () => {
    const verb = { name: 'scene', summary: 'what the scene is' };
    const first = { ...taskLedBy('first-scene', OBJECT_DETECTOR), abilities: { verb } };
    const second = { ...taskLedBy('second-scene', LABELS), abilities: { verb } };
    expect(deepStackRouteTable(new TaskTable([first]), []).map((route) => route.path)).to.include('/v1/vision/scene');
    expect(() => deepStackRouteTable(new TaskTable([first, second]), [])).to.throw(RouteClaimedTwice, 'POST /v1/vision/scene is claimed by task first-scene and by task second-scene');
  });

  it('refuses two tasks of one type: each is a path of its own on every door', () => {
    expect(() => new TaskTable([taskLedBy('gate', LABELS), taskLedBy('gate', EMBEDDINGS)])).to.throw('two tasks are of type "gate"');
  });

  it('does not start a server whose tasks claim one route twice, and names both', async () => {
    const verb = { name: 'whole', summary: 'the whole image' };
    const first = { ...wholeImageTask, abilities: { verb } };
    // The same answer schema (the first brings it), another type, the same verb.
    const second = { ...wholeImageTask, type: 'whole-image-again', schemas: [], abilities: { verb } };
    const started = startTestServer({}, undefined, [...FEATURES, { name: 'whole-twice', docs: 'test/support/whole-image-task.ts', parts: () => ({ tasks: [first, second] }) }]);
    const refusal = await started.then(
      async (server) => {
        await server.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(RouteClaimedTwice).and.to.have.property('message', 'POST /v1/vision/whole is claimed by task whole-image and by task whole-image-again');
  });
});
