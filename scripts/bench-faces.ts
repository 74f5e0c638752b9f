/**
 * Face call benchmark: the real server in this process with UltraFace, one face call timed against
 * the face model's raw ONNX Runtime inference — detection alone, then detection and recognition of
 * every face once people are registered (`npm run bench -- --sections faces`).
 */
import './lib/typescript-workers.js';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { sessionOptions } from '../src/models/runtimes/onnx/onnx-session-options.js';
import { percentile } from './lib/bench-numbers.js';
import { startLocalServer } from './lib/local-server.js';

export interface FaceBenchmarkOptions {
  /** The object model the server loads beside the face model. */
  readonly objectModel: string;
  readonly faceModel: string;
  /** Sequential requests per phase. */
  readonly requests: number;
  readonly threads: number;
}

const FACES = '../shared/eval/faces';
/** bbt1: four faces (Raj, Leonard, Howard, Sheldon); three of them get registered. */
const GROUP_PHOTO = path.join(FACES, 'bbt1.jpg');
const REGISTERED = ['raj', 'leonard', 'howard'];

const median = (values: number[]) => percentile(values, 50);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** Milliseconds of one run of the face model on an input of its size (the time does not depend on the pixels). */
async function rawFaceInference(modelPath: string, threads: number): Promise<{ runOnce: () => Promise<number>; release: () => Promise<void> }> {
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(threads));
  const metadata = session.inputMetadata[0];
  const [, , height, width] = metadata.isTensor ? metadata.shape.map(Number) : [1, 3, 480, 640];
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', new Float32Array(3 * width * height), [1, 3, height, width]) };
  const runOnce = async () => {
    const started = performance.now();
    await session.run(feeds);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) await runOnce();
  return { runOnce, release: () => session.release() };
}

/** Median per-stage timings of the server's request log lines from `from` on. */
function stageMedians(logText: string): string {
  const byStage = new Map<string, number[]>();
  for (const line of logText.split('\n')) {
    if (!line.includes('"timings_ms"')) continue;
    for (const [stage, ms] of Object.entries((JSON.parse(line) as { timings_ms: Record<string, number> }).timings_ms)) byStage.set(stage, [...(byStage.get(stage) ?? []), ms]);
  }
  return [...byStage].map(([stage, values]) => `${stage} ${fixed(median(values), 2)}`).join(', ');
}

export async function runFaceBenchmark(options: FaceBenchmarkOptions): Promise<string[]> {
  const server = await startLocalServer({ DETECTD_MODEL: `${path.resolve(options.objectModel)},${path.resolve(options.faceModel)}`, DETECTD_LOG_LEVEL: 'info' });
  try {
    const apiKey = await server.createService({ name: 'faces', type: 'face-detection' });
    const photo = new Uint8Array(fs.readFileSync(GROUP_PHOTO));
    const call = async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/v1/face-detection`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: photo });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      await response.json();
      return performance.now() - started;
    };
    const phase = async () => {
      for (let i = 0; i < 3; i++) await call();
      const logStart = server.logText().length;
      const times: number[] = [];
      for (let i = 0; i < options.requests; i++) times.push(await call());
      return { times, stages: stageMedians(server.logText().slice(logStart)) };
    };
    const raw = await rawFaceInference(path.resolve(options.faceModel), options.threads);
    const rawTimes: number[] = [];
    for (let i = 0; i < options.requests; i++) rawTimes.push(await raw.runOnce());
    await raw.release();
    const detect = await phase();
    for (const person of REGISTERED) {
      const form = new FormData();
      form.append('userid', person);
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(FACES, person, `${person}1.png`)))]), `${person}.png`);
      const registered = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form });
      if (registered.status !== 200) throw new Error(`register ${person}: HTTP ${registered.status}`);
    }
    const recognize = await phase();
    return [
      `== faces: ${path.basename(options.faceModel)}, bbt1.jpg (1366×768, 4 faces), ${options.threads} ORT threads, ${options.requests} sequential requests each`,
      `raw ONNX Runtime inference of the face model: p50 ${fixed(median(rawTimes))} ms`,
      `detection (nobody registered): p50 ${fixed(median(detect.times))} ms, p99 ${fixed(percentile(detect.times, 99))} ms; stage medians (ms): ${detect.stages}`,
      `detection + recognition (${REGISTERED.length} people registered, every face described): p50 ${fixed(median(recognize.times))} ms, p99 ${fixed(percentile(recognize.times, 99))} ms; stage medians (ms): ${recognize.stages}`,
    ];
  } finally {
    await server.close();
  }
}
