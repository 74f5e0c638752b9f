import { expect } from 'chai';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Service } from '../src/core/service.js';
import type { CallContext } from '../src/core/call-context.js';
import type { CallOutcome, CallRecorder } from '../src/core/call-recorder.js';
import { loadOnnxDetector } from '../src/models/runtimes/onnx/onnx-detector.js';
import type { Detector } from '../src/models/types.js';
import { ModelScheduler, type ModelTurn } from '../src/scheduler/model-scheduler.js';
import { StreamMetrics } from '../src/streaming/stream-metrics.js';
import { type FrameOutcome, type StreamFrame, StreamSession } from '../src/streaming/stream-session.js';
import { objectDetection } from '../src/features/objects/object-detection-task.js';
import { DESCRIBED_FEATURES } from '../src/features/index.js';
import { PARAMETER_RULES } from '../src/features/objects/parameters.js';
import { parseImageConfigurations } from '../src/tasks/image-parameters.js';
import { dogJpeg } from './support/images.js';
import { modelPath } from './support/paths.js';
import { waitFor } from './support/wait-for.js';

const SERVICE: Service = { id: 'svc', accountId: 'acc', name: 'engine test', type: 'object-detection', model: null, createdAt: '', disabled: false, keylessAddressRanges: null, rateLimitPerMinute: null, monthlyQuota: null, deepStackMaxPredictions: null };
const never = () => new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The stream engine without any transport: frames in, outcomes out, on a real model. The model's
 * turns are held by the test, so which frame waits and which is dropped does not depend on how
 * fast the machine is.
 */
describe('stream engine (transport-free, real model: yolox-nano-416)', () => {
  let detector: Detector;
  let scheduler: ModelScheduler<Detector>;
  let metrics: Registry;
  let recorded: { call: CallContext; outcome: CallOutcome }[];
  let outcomes: FrameOutcome[];
  const frame = (frameId: number, parameters = parseImageConfigurations(PARAMETER_RULES, [], 'v1')): StreamFrame => ({ frameId, payload: dogJpeg(), parameters });

  before(async () => {
    detector = await loadOnnxDetector(modelPath('yolox-nano-416'), { threads: 2, concurrency: 1, nmsIou: 0.7 });
  });
  after(() => detector?.dispose());

  function openSession(): StreamSession {
    scheduler = new ModelScheduler(detector, { maxAdmitted: 10 });
    metrics = new Registry();
    recorded = [];
    outcomes = [];
    const calls = { record: (call: CallContext, outcome: CallOutcome) => void recorded.push({ call, outcome }) } as unknown as CallRecorder;
    return new StreamSession(
      {
        streamId: 'engine-test',
        transport: 'test',
        service: SERVICE,
        task: objectDetection,
        admitFrame: async () => undefined,
        scheduler,
        analysisLimits: { maxPixels: 10_000_000, maxDetections: 100, deadlineMs: 60_000 },
        calls,
        errors: DESCRIBED_FEATURES.errors,
        metrics: new StreamMetrics(metrics),
        logger: pino({ level: 'silent' }),
      },
      async (outcome) => void outcomes.push(outcome),
    );
  }

  /** Takes every input buffer of the model, as busy callers would. */
  async function holdAllTurns(): Promise<ModelTurn[]> {
    return Promise.all(Array.from({ length: detector.capacity.inputs }, () => scheduler.acquire('request', never())));
  }

  async function waitForOutcomes(count: number): Promise<void> {
    await waitFor(() => outcomes.length >= count, { what: `${count} frame outcome(s)` });
  }

  async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
    const metric = (await metrics.getMetricsAsJSON()).find((candidate) => candidate.name === name);
    const value = (metric?.values as { labels: Record<string, string>; value: number }[] | undefined)?.find((entry) =>
      Object.entries(labels).every(([key, label]) => entry.labels[key] === label),
    );
    return value?.value ?? 0;
  }

  it('holds only the newest frame while the model is busy: frames 1–4 are dropped, 5 is analysed, and the next frame after it too', async () => {
    const session = openSession();
    const turns = await holdAllTurns();
    for (let id = 1; id <= 5; id++) session.offer(frame(id));
    await tick();
    expect(outcomes, 'nothing is analysed while the model is busy').to.deep.equal([]);
    turns.forEach((turn) => turn.release());
    await waitForOutcomes(1);
    session.offer(frame(6));
    await waitForOutcomes(2);
    await session.end(1000);

    expect(outcomes.map((outcome) => [outcome.kind, outcome.frameId, outcome.sequence])).to.deep.equal([
      ['result', 5, 5],
      ['result', 6, 6],
    ]);
    const [first, second] = outcomes as Extract<FrameOutcome, { kind: 'result' }>[];
    expect(first.dropped).to.equal(4);
    expect(second.dropped).to.equal(0);
    expect(first.found.map((object) => object.name)).to.include('dog');
    expect(second.found.find((object) => object.name === 'dog')?.track_id, 'the dog keeps its track').to.equal(first.found.find((object) => object.name === 'dog')?.track_id);
    expect(recorded.map(({ call }) => call.requestId)).to.deep.equal(['engine-test#5', 'engine-test#6']);
    expect(await metricValue('detectd_stream_frames_total', { fate: 'dropped' })).to.equal(4);
    expect(await metricValue('detectd_stream_frames_total', { fate: 'analysed' })).to.equal(2);
  });

  it('reports every stage of a frame, each within the frame’s total', async () => {
    const session = openSession();
    session.offer(frame(1, parseImageConfigurations(PARAMETER_RULES, [{ parameter: 'OutputVisualizedImage', value: 'true' }], 'v1')));
    await waitForOutcomes(1);
    await session.end(1000);
    const [result] = outcomes as Extract<FrameOutcome, { kind: 'result' }>[];
    const { total, ...stages } = result.timings;
    expect(Object.keys(stages)).to.have.members(['wait', 'decode', 'preprocess', 'inference', 'postprocess', 'tracking', 'encode']);
    for (const [stage, ms] of Object.entries(stages)) expect(ms, stage).to.be.a('number').and.at.least(0);
    expect(result.timings.inference, 'the model ran').to.be.greaterThan(0);
    expect(result.timings.encode, 'the visualization was encoded').to.be.greaterThan(0);
    // The stages are disjoint parts of the frame's life from receipt to answer (each rounded to 0.01 ms).
    const sum = Object.values(stages).reduce((a, b) => a + b, 0);
    expect(sum).to.be.at.most(total + 0.01 * Object.keys(stages).length);
    expect(result.visualizedImage).to.be.a('string');
  });

  it('cancels, without recording a call or an error, the frame still waiting when the client closes the stream', async () => {
    const session = openSession();
    const turns = await holdAllTurns();
    session.offer(frame(1));
    session.offer(frame(2));
    await tick();
    await session.end(1000); // the client pressed Stop
    turns.forEach((turn) => turn.release());
    await tick();
    expect(outcomes).to.deep.equal([]);
    expect(recorded, 'no call, so no usage and no deadline_exceeded').to.deep.equal([]);
    expect(await metricValue('detectd_stream_frames_total', { fate: 'cancelled' })).to.equal(1);
    expect(await metricValue('detectd_stream_frames_total', { fate: 'dropped' })).to.equal(1);
    expect(await metricValue('detectd_stream_frames_total', { fate: 'failed' })).to.equal(0);
  });
});
