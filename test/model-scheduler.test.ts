import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { detectOnce, detectScheduled } from './support/detect-once.js';
import { loadPlateReader } from '../src/models/load-plate-models.js';
import type { PlateReader } from '../src/models/plates.js';
import { loadOnnxDetector } from '../src/models/runtimes/onnx/onnx-detector.js';
import type { Detector } from '../src/models/types.js';
import { type Lane, ModelScheduler, type ModelTurn, QueueFullError, WaitAbortedError } from '../src/scheduler/model-scheduler.js';
import { decodeImage } from '../src/vision/decode.js';
import { dogJpeg } from './support/images.js';
import { modelPath, SHARED_DIR } from './support/paths.js';

const OPTIONS = { minScore: 0.3, maxDetections: 100 };
const never = () => new AbortController().signal;

describe('ModelScheduler (one per model, real model: yolox-nano-416)', () => {
  let detector: Detector;
  before(async () => {
    detector = await loadOnnxDetector(modelPath('yolox-nano-416'), { threads: 2, concurrency: 1, nmsIou: 0.7 });
  });
  after(() => detector?.dispose());

  it('is driven within the detector’s capacity: one more input buffer than runs', () => {
    expect(detector.capacity).to.deep.equal({ inputs: 2, runs: 1 });
  });

  it('refuses admission beyond maxAdmitted at once, and admits again once one is done', () => {
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 2 });
    const first = scheduler.admit();
    scheduler.admit();
    expect(() => scheduler.admit()).to.throw(QueueFullError);
    first();
    first(); // ending twice frees one place only
    scheduler.admit();
    expect(() => scheduler.admit()).to.throw(QueueFullError);
  });

  it('hands free turns to requests and streams in alternation while both wait, so neither starves', async () => {
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 100 });
    const held = [await scheduler.acquire('stream', never()), await scheduler.acquire('stream', never())];
    const granted: string[] = [];
    const grantedTurns: ModelTurn[] = [];
    const wait = (lane: Lane, name: string) =>
      void scheduler.acquire(lane, never()).then((turn) => {
        granted.push(name);
        grantedTurns.push(turn);
      });
    // Three streams queue first, then three requests: FIFO alone would serve all the streams first.
    wait('stream', 's1');
    wait('stream', 's2');
    wait('stream', 's3');
    wait('request', 'r1');
    wait('request', 'r2');
    wait('request', 'r3');
    expect(scheduler.load.waiting).to.deep.equal({ request: 3, stream: 3 });
    // Release the turns in the order they were handed out; each release hands one on.
    for (let released = 0; granted.length < 6; released++) {
      (held[released] ?? grantedTurns[released - held.length]).release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(granted).to.deep.equal(['r1', 's1', 'r2', 's2', 'r3', 's3']);
  });

  it('lets an aborted waiter leave the queue and gives the turn to the next one', async () => {
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 100 });
    const held = [await scheduler.acquire('request', never()), await scheduler.acquire('request', never())];
    const deadline = new AbortController();
    const abandoned = scheduler.acquire('request', deadline.signal);
    const patient = scheduler.acquire('request', never());
    deadline.abort(new Error('deadline'));
    let failure: unknown;
    await abandoned.catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(WaitAbortedError);
    held[0].release();
    const turn = await patient;
    expect(scheduler.load.waiting.request).to.equal(0);
    turn.release();
    held[1].release();
  });

  it('runs both input buffers’ images through the one run slot and gets the same objects as an unscheduled run', async () => {
    const image = await decodeImage(dogJpeg(), { maxPixels: 40e6 });
    const expected = (await detectOnce(detector, image, OPTIONS)).detections.map((detection) => detection.classIndex);
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 100 });
    const results = await Promise.all([1, 2, 3, 4].map(() => detectScheduled(scheduler, image, OPTIONS, never())));
    for (const result of results) {
      expect(result.detections.map((detection) => detection.classIndex)).to.deep.equal(expected);
      expect(result.timings.inference).to.be.greaterThan(0);
    }
    expect(results.some((result) => result.runWaitMs > 0), 'a second prepared image waited for the run slot').to.equal(true);
    expect(scheduler.load).to.deep.equal({ admitted: 0, waiting: { request: 0, stream: 0 }, runsInFlight: 0 });
  });
});

describe('ModelScheduler with runs side by side (real model: yolo26n-640-int8, two inference workers)', () => {
  let detector: Detector;
  /** Each run as the detector saw it: alone or not, and how many runs were in flight when it started. */
  let runs: { alone: boolean; inFlightAtStart: number }[];
  let inFlight: number;
  let image: Awaited<ReturnType<typeof decodeImage>>;
  before(async () => {
    const loaded = await loadOnnxDetector(modelPath('yolo26n-640-int8'), { threads: 2, concurrency: 2, nmsIou: 0.7 });
    const inference = loaded.inference.bind(loaded);
    // The real runs, watched: which the scheduler sent alone, and what overlapped.
    detector = {
      ...loaded,
      inference: async (input, alone) => {
        runs.push({ alone, inFlightAtStart: ++inFlight });
        try {
          return await inference(input, alone);
        } finally {
          inFlight--;
        }
      },
    };
    image = await decodeImage(dogJpeg(), { maxPixels: 40e6 });
  });
  beforeEach(() => {
    runs = [];
    inFlight = 0;
  });
  after(() => detector?.dispose());

  it('has two run slots and three input buffers', () => {
    expect(detector.capacity).to.deep.equal({ inputs: 3, runs: 2 });
  });

  it('sends a request alone when nothing else wants the model, and several side by side when they do', async () => {
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 100 });
    const expected = (await detectOnce(detector, image, OPTIONS)).detections.map((detection) => detection.classIndex);
    runs = [];
    const leave = scheduler.admit();
    await detectScheduled(scheduler, image, OPTIONS, never());
    leave();
    expect(runs).to.deep.equal([{ alone: true, inFlightAtStart: 1 }]);

    runs = [];
    const admissions = [1, 2, 3, 4, 5, 6].map(() => scheduler.admit());
    const results = await Promise.all(admissions.map(() => detectScheduled(scheduler, image, OPTIONS, never())));
    admissions.forEach((leaveOne) => leaveOne());
    expect(runs.every((run) => !run.alone), 'no run alone while six requests want the model').to.equal(true);
    expect(Math.max(...runs.map((run) => run.inFlightAtStart)), 'two runs in flight at once').to.equal(2);
    for (const result of results) expect(result.detections.map((detection) => detection.classIndex)).to.deep.equal(expected);
  });

  it('starts no other run while one runs alone', async () => {
    const scheduler = new ModelScheduler(detector, { maxAdmitted: 100 });
    // The first request is alone when its run starts; the second arrives while it runs and must wait for it.
    const leaveFirst = scheduler.admit();
    const first = detectScheduled(scheduler, image, OPTIONS, never());
    await new Promise((resolve) => setImmediate(resolve));
    const leaveSecond = scheduler.admit();
    const second = detectScheduled(scheduler, image, OPTIONS, never());
    await Promise.all([first, second]);
    leaveFirst();
    leaveSecond();
    expect(runs[0]).to.deep.equal({ alone: true, inFlightAtStart: 1 });
    expect(runs[1].inFlightAtStart, 'the second run started after the lone one ended').to.equal(1);
  });
});

describe('ModelScheduler of a model of another role (real model: the plate reader cct_xs_v2_global)', function () {
  this.timeout(120_000);
  let reader: PlateReader;
  before(async () => {
    reader = await loadPlateReader(path.join(SHARED_DIR, 'models', 'plates', 'cct_xs_v2_global.onnx'), { threads: 1, concurrency: 1, nmsIou: 0.7 });
  });
  after(() => reader?.dispose());

  it('runs its calls through run(), one run slot at a time, tells onRun of each, reads as an unscheduled read does, and never detects', async () => {
    const image = await decodeImage(fs.readFileSync(path.join(SHARED_DIR, 'eval', 'plates', 'images', 'us', 'wts-lg-000014.jpg')), { maxPixels: 40e6 });
    const plate = [{ left: 543, top: 167, right: 651, bottom: 222 }];
    try {
      const ran: string[] = [];
      const scheduler = new ModelScheduler(reader, { maxAdmitted: 4, onRun: (model) => ran.push(`${model.role} ${model.name}`) });
      expect(reader).to.include({ role: 'reader', kind: 'plate-text' });
      let inFlight = 0;
      let most = 0;
      const read = () =>
        scheduler.run('request', never(), async () => {
          most = Math.max(most, ++inFlight);
          try {
            return await reader.read(image, plate);
          } finally {
            inFlight--;
          }
        });
      const reads = await Promise.all([read(), read(), read()]);
      expect(most, 'one run at a time (its capacity)').to.equal(1);
      expect(ran).to.deep.equal(Array(3).fill('reader cct_xs_v2_global'));
      const unscheduled = await reader.read(image, plate);
      for (const { readings } of reads) expect(readings.map((reading) => reading.text)).to.deep.equal(unscheduled.readings.map((reading) => reading.text));
      const turn = await scheduler.acquire('request', never());
      const refused = await turn.detect(image, OPTIONS, never()).then(() => undefined, (error: Error) => error.message);
      turn.release();
      expect(refused).to.equal('model cct_xs_v2_global is a reader: its scheduler runs it with run(), not detect()');
    } finally {
      image.release();
    }
  });
});
