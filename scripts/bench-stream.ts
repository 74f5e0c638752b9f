/**
 * Video stream benchmark: the real server in this process, real WebSocket clients streaming a
 * 640×480 pan clip (made with ffmpeg from a real photo) at a camera's frame rate.
 *
 *   npx tsx scripts/bench-stream.ts [--models FILE,FILE] [--image FILE] [--seconds S] [--streams N]
 *
 * Per model and protocol (the JSON stream and the Nvision protobuf stream, same clip): processed
 * fps and send → result latency (p50/p95) of one stream at 30 fps; the most a stream gets when
 * each frame is sent as soon as the previous result is in; and the RSS growth with N streams at
 * 30 fps each (server and clients share the process, so it is an upper bound for the server's part).
 */
import './lib/typescript-workers.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { percentile, positiveNumber } from './lib/bench-numbers.js';
import { type LocalServer, startLocalServer } from './lib/local-server.js';
import { CLIP_FPS, makePanClip } from './lib/pan-clip.js';
import { CONNECT_STREAM, STREAM_PROTOCOLS, type StreamConnection, type StreamProtocol } from './lib/stream-connection.js';

export interface StreamBenchmarkOptions {
  /** ONNX model files, each benchmarked on its own server. */
  readonly models: readonly string[];
  /** Photo the 640×480 pan is cut from (at least 768×576). */
  readonly image: string;
  /** Length of each timed phase. */
  readonly seconds: number;
  /** Streams open at once for the memory figure. */
  readonly streams: number;
}

export interface StreamBenchmarkFigures {
  readonly model: string;
  readonly protocol: StreamProtocol;
  readonly frameSize: string;
  /** One stream, frames sent at 30 fps. Inference time is reported by the JSON stream only (the Nvision message has no timings). */
  readonly realTime: { sentFps: number; processedFps: number; droppedPercent: number; latencyMs: Percentiles; inferenceMs?: Percentiles };
  /** One stream, next frame sent as soon as the previous result arrived. */
  readonly closedLoop: { processedFps: number; latencyMs: Percentiles };
  /** N streams at 30 fps each sharing the model. */
  readonly concurrent: { streams: number; processedFpsTotal: number; latencyMs: Percentiles; rssPerStreamMiB: number };
}

interface Percentiles {
  p50: number;
  p95: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (value: number) => Math.round(value * 10) / 10;

function percentiles(values: number[]): Percentiles {
  return { p50: round1(percentile(values, 50)), p95: round1(percentile(values, 95)) };
}

/** What one client saw: its send times and the results (with their arrival times). */
class TimedStream {
  readonly sentAt = new Map<number, number>();
  readonly latencies: number[] = [];
  readonly inference: number[] = [];
  results = 0;
  dropped = 0;
  #nextId = 0;
  #lastAnswered = 0;
  #waiters: (() => void)[] = [];

  constructor(readonly connection: StreamConnection) {
    connection.onAnswer((answer) => {
      if (answer.kind !== 'result') return;
      const { frameId, dropped, inferenceMs } = answer;
      this.results++;
      // Only the newest waiting frame is analysed: a protocol that does not say how many were skipped shows it in the ids.
      this.dropped += dropped ?? frameId - this.#lastAnswered - 1;
      this.#lastAnswered = frameId;
      this.latencies.push(performance.now() - this.sentAt.get(frameId)!);
      if (inferenceMs !== undefined) this.inference.push(inferenceMs);
      this.#waiters.splice(0).forEach((wake) => wake());
    });
  }

  send(frame: Buffer): number {
    const id = ++this.#nextId;
    this.sentAt.set(id, performance.now());
    this.connection.send(frame, id);
    return id;
  }

  /** Waits until the result (or the drop) of every frame sent so far is known: the newest frame is always answered. */
  async settle(): Promise<void> {
    const last = this.#nextId;
    while (this.#lastAnswered < last) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

/** Sends frames round-robin at `fps` for `seconds`, on each stream, as cameras would. */
async function streamAtFrameRate(streams: TimedStream[], frames: Buffer[], fps: number, seconds: number): Promise<number> {
  const started = performance.now();
  const count = Math.round(fps * seconds);
  for (let index = 0; index < count; index++) {
    const due = started + (index * 1000) / fps;
    if (due > performance.now()) await sleep(due - performance.now());
    for (const stream of streams) stream.send(frames[index % frames.length]);
  }
  await Promise.all(streams.map((stream) => stream.settle()));
  return (performance.now() - started) / 1000;
}

async function benchmarkModel(server: LocalServer, model: string, protocol: StreamProtocol, frames: Buffer[], options: StreamBenchmarkOptions): Promise<StreamBenchmarkFigures> {
  const open = async () => new TimedStream(await CONNECT_STREAM[protocol](server));

  // Warm-up: first runs pay for allocations and caches.
  const warm = await open();
  for (const frame of frames.slice(0, 10)) {
    warm.send(frame);
    await warm.settle();
  }
  await warm.connection.close();

  const single = await open();
  const elapsed = await streamAtFrameRate([single], frames, CLIP_FPS, options.seconds);
  await single.connection.close();
  const sent = single.sentAt.size;

  const loop = await open();
  const loopStarted = performance.now();
  for (let index = 0; performance.now() - loopStarted < options.seconds * 1000; index++) {
    loop.send(frames[index % frames.length]);
    await loop.settle();
  }
  const loopElapsed = (performance.now() - loopStarted) / 1000;
  await loop.connection.close();

  const rssBefore = process.memoryUsage().rss;
  const many = await Promise.all(Array.from({ length: options.streams }, open));
  let rssPeak = process.memoryUsage().rss;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const manyElapsed = await streamAtFrameRate(many, frames, CLIP_FPS, Math.max(3, options.seconds / 2));
  clearInterval(sampler);
  await Promise.all(many.map((stream) => stream.connection.close()));

  return {
    model,
    protocol,
    frameSize: '640x480',
    realTime: {
      sentFps: round1(sent / elapsed),
      processedFps: round1(single.results / elapsed),
      droppedPercent: round1((100 * single.dropped) / sent),
      latencyMs: percentiles(single.latencies),
      inferenceMs: single.inference.length ? percentiles(single.inference) : undefined,
    },
    closedLoop: { processedFps: round1(loop.results / loopElapsed), latencyMs: percentiles(loop.latencies) },
    concurrent: {
      streams: options.streams,
      processedFpsTotal: round1(many.reduce((sum, stream) => sum + stream.results, 0) / manyElapsed),
      latencyMs: percentiles(many.flatMap((stream) => stream.latencies)),
      rssPerStreamMiB: round1((rssPeak - rssBefore) / options.streams / 2 ** 20),
    },
  };
}

/** Runs the stream benchmark for each model, one server per model. */
export async function runStreamBenchmark(options: StreamBenchmarkOptions): Promise<StreamBenchmarkFigures[]> {
  const clip = await makePanClip(options.image);
  const figures: StreamBenchmarkFigures[] = [];
  try {
    for (const modelFile of options.models) {
      const server = await startLocalServer({ DETECTD_MODEL: modelFile, DETECTD_STREAM_MAX_STREAMS: String(options.streams + 1) });
      try {
        // Protocols alternate on the same server, so machine drift does not favour one.
        for (const protocol of STREAM_PROTOCOLS) figures.push(await benchmarkModel(server, path.basename(modelFile, '.onnx'), protocol, clip.frames, options));
      } finally {
        await server.close();
      }
    }
  } finally {
    clip.remove();
  }
  return figures;
}

/** One line per model, for `npm run bench`'s report. */
export function describeStreamFigures(figures: readonly StreamBenchmarkFigures[]): string[] {
  return figures.map(
    ({ model, protocol, realTime, closedLoop, concurrent }) =>
      `${model} (${protocol}): ${realTime.processedFps} processed fps of 30 sent (${realTime.droppedPercent}% dropped), latency p50 ${realTime.latencyMs.p50} ms, p95 ${realTime.latencyMs.p95} ms, ` +
      `${realTime.inferenceMs ? `inference p50 ${realTime.inferenceMs.p50} ms; ` : ''}closed loop ${closedLoop.processedFps} fps; ${concurrent.streams} streams: ${concurrent.processedFpsTotal} fps total, ` +
      `latency p50 ${concurrent.latencyMs.p50} ms; RSS ${concurrent.rssPerStreamMiB} MiB per stream`,
  );
}

function printFigures(figures: StreamBenchmarkFigures[]): void {
  const rows = figures.map((entry) => ({
    model: entry.model,
    protocol: entry.protocol,
    'fps @30 in': entry.realTime.processedFps,
    dropped: `${entry.realTime.droppedPercent}%`,
    'latency p50/p95 ms': `${entry.realTime.latencyMs.p50} / ${entry.realTime.latencyMs.p95}`,
    'inference p50 ms': entry.realTime.inferenceMs?.p50 ?? '–',
    'closed-loop fps': entry.closedLoop.processedFps,
    [`${entry.concurrent.streams} streams: fps total`]: entry.concurrent.processedFpsTotal,
    [`${entry.concurrent.streams} streams: latency p50/p95`]: `${entry.concurrent.latencyMs.p50} / ${entry.concurrent.latencyMs.p95}`,
    'RSS/stream MiB': entry.concurrent.rssPerStreamMiB,
  }));
  console.table(rows);
  console.log(JSON.stringify(figures, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const options = new Command('bench-stream')
    .description('Processed fps, latency and memory of the WebSocket video streams (JSON and Nvision protobuf)')
    .option('--models <files>', 'comma-separated ONNX models', '../shared/models/yolox-nano-416.onnx,../shared/models/yolo26n-640-int8.onnx')
    .option('--image <file>', 'photo to cut the 640×480 pan from', '../shared/eval/photos/dog.jpg')
    .option('--seconds <s>', 'duration of each timed phase', positiveNumber, 10)
    .option('--streams <n>', 'streams at once for the concurrency and memory figures', positiveNumber, 8)
    .parse()
    .opts<{ models: string; image: string; seconds: number; streams: number }>();
  printFigures(await runStreamBenchmark({ ...options, models: options.models.split(',').map((file) => path.resolve(file.trim())) }));
}
