/**
 * `npm run bench`: in one run,
 * - http: the service's latency and throughput for one photo, next to raw ONNX Runtime inference
 *   of the same model measured in the same process, as ratios;
 * - sizes: the photo, a 1920×1080 and a 4032×3024 JPEG made from it, each plain, with crops and
 *   with the visualized image: latency and c=8 throughput against the physical floor measured in
 *   the same run (raw inference + libjpeg-turbo's own decode/encode; tjbench from libjpeg-turbo-progs);
 * - memory: RSS of the service on the embedded model after 200 and after 2,000 requests;
 * - uploads: the same photo as base64 JSON, as the raw image body and as a multipart form, for
 *   the photo and for a 12-megapixel JPEG made from it at run time (not stored in the repository);
 * - stream: the WebSocket video stream at 640×480, 30 fps in (scripts/bench-stream.ts).
 *
 *   npm run bench -- [--sections http,sizes,memory,uploads,stream,faces] [--model FILE] [--face-model FILE] [--image FILE] [--requests N] [--seconds S] [--memory-requests N] [--form json|multipart]
 */
import './lib/typescript-workers.js';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import jpegTurbo from '@julusian/jpeg-turbo';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { relaunchOnJemalloc } from '../src/jemalloc.js';
import { ultralytics } from '../src/models/families/boxes/ultralytics.js';
import { sessionOptions } from '../src/models/runtimes/onnx/onnx-session-options.js';
import { decodeImage } from '../src/vision/decode.js';
import { JPEG_DENOMINATORS, scaleDenominator } from '../src/vision/decode-scale.js';
import { letterboxInto } from '../src/vision/letterbox.js';
import { percentile, positiveNumber } from './lib/bench-numbers.js';
import { base64DecodeMs, type EncodedRegion, libjpegEncodeMs, tjbenchDecodeMs } from './lib/libjpeg-floor.js';
import { runFaceBenchmark } from './bench-faces.js';
import { describeStreamFigures, runStreamBenchmark } from './bench-stream.js';
import { startLocalServer } from './lib/local-server.js';

const SECTIONS = ['http', 'sizes', 'memory', 'uploads', 'stream', 'faces'] as const;
type Section = (typeof SECTIONS)[number];

interface BenchOptions {
  sections: Section[];
  model: string;
  faceModel: string;
  image: string;
  requests: number;
  seconds: number;
  memoryRequests: number;
  uploadRequests: number;
  form: 'json' | 'multipart';
}

function sectionList(value: string): Section[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length) throw new InvalidArgumentError(`unknown section ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  return names as Section[];
}

function parseOptions(): BenchOptions {
  return new Command('bench')
    .description('Latency and throughput of detectd vs raw ONNX Runtime inference; memory on the embedded model')
    .option('--sections <list>', `comma-separated: ${SECTIONS.join(', ')}`, sectionList, [...SECTIONS])
    .option('--model <file>', 'ONNX model for the http section', '../shared/models/yolo26n-640-int8.onnx')
    .option('--face-model <file>', 'face model of the faces section (the embedded YuNet-n a fresh clone serves)', 'assets/models/yunet-n.onnx')
    .option('--image <file>', 'photo to send', '../shared/eval/photos/dog.jpg')
    .option('--requests <n>', 'sequential requests to time', positiveNumber, 60)
    .option('--seconds <s>', 'duration of each throughput run', positiveNumber, 8)
    .option('--memory-requests <n>', 'requests of the memory section', positiveNumber, 2000)
    .option('--upload-requests <n>', 'sequential requests per form and photo in the uploads section', positiveNumber, 30)
    .addOption(new Option('--form <form>', 'how the sizes section sends its images').choices(['json', 'multipart']).default('json'))
    .parse()
    .opts<BenchOptions>();
}

const median = (values: number[]) => percentile(values, 50);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/**
 * Raw inference: the same model file and session options as the service, fed the photo's
 * letterboxed tensor, nothing else. Returns a function timing one run.
 */
async function rawInference(modelPath: string, threads: number, imageBytes: Buffer): Promise<{ inputSide: number; runOnce: () => Promise<number>; release: () => Promise<void> }> {
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(threads));
  const metadata = session.inputMetadata[0];
  const size = metadata.isTensor ? Number(metadata.shape[2]) : 640;
  const tensor = new Float32Array(3 * size * size);
  // The photo as a real input; which family's layout does not change a run's time.
  letterboxInto(await decodeImage(imageBytes, { maxPixels: 1e9 }), ultralytics.letterbox({ width: size, height: size }), tensor);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', tensor, [1, 3, size, size]) };
  const runOnce = async () => {
    const started = performance.now();
    await session.run(feeds);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) await runOnce();
  return { inputSide: size, runOnce, release: () => session.release() };
}

/**
 * Runs `first` and `second` in alternating blocks, so that both see the same machine: on a
 * shared 2-core VM the speed drifts by tens of percent over a minute, and a ratio of two
 * measurements taken minutes apart would mostly measure that drift. The first call of each block
 * runs but is not counted: the other side's ONNX Runtime threads still spin for a while after its
 * last run and take the cores from it (the first service request after raw runs took 48–60 ms
 * where the next ones took 31–47, on every size), which neither side meets when it runs alone.
 */
async function interleaved(first: () => Promise<number>, second: () => Promise<number>, total: number, block = 6): Promise<[number[], number[]]> {
  const a: number[] = [];
  const b: number[] = [];
  while (a.length < total) {
    await first();
    for (let i = 1; i < block; i++) a.push(await first());
    await second();
    for (let i = 1; i < block; i++) b.push(await second());
  }
  return [a, b];
}

/** One way of sending the image: its Content-Type, its body (built once) and the query string. */
interface Upload {
  readonly form: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly query: string;
}

const jsonUpload = (imageBytes: Buffer): Upload => ({
  form: 'base64 JSON',
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify({ raw_data: imageBytes.toString('base64') })),
  query: '',
});

/** The three forms `POST /api/v1/object-detection` takes, the same image in each. */
async function uploadForms(imageBytes: Buffer): Promise<Upload[]> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(imageBytes)], { type: 'image/jpeg' }), 'photo.jpg');
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  return [
    jsonUpload(imageBytes),
    { form: 'raw image/jpeg', contentType: 'image/jpeg', body: imageBytes, query: '' },
    { form: 'multipart form', contentType: encoded.headers.get('content-type')!, body: Buffer.from(await encoded.arrayBuffer()), query: '' },
  ];
}

/** A minimal keep-alive HTTP client: the body is built once, so the client adds next to nothing. */
function detectionPoster(url: string, apiKey: string, upload: Upload): () => Promise<number> {
  // Idle sockets are dropped long before the server's keep-alive (KEEP_ALIVE_TIMEOUT_MS) would close them under a request.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 });
  const target = new URL(`/api/v1/object-detection${upload.query}`, url);
  const { body } = upload;
  return () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.request(
        target,
        { method: 'POST', agent, headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': upload.contentType, 'Content-Length': body.length } },
        (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`HTTP ${response.statusCode}`))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}

async function throughput(post: () => Promise<number>, concurrency: number, seconds: number): Promise<{ perSecond: number; latencies: number[] }> {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) latencies.push(await post());
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

/** Median per-stage timings from the server's own request log lines. */
function stageMedians(logText: string): Record<string, number> {
  const byStage = new Map<string, number[]>();
  for (const line of logText.split('\n')) {
    if (!line.includes('"timings_ms"')) continue;
    const timings = (JSON.parse(line) as { timings_ms: Record<string, number> }).timings_ms;
    for (const [stage, ms] of Object.entries(timings)) byStage.set(stage, [...(byStage.get(stage) ?? []), ms]);
  }
  return Object.fromEntries([...byStage].map(([stage, values]) => [stage, median(values)]));
}

/** The service next to raw inference, measured in one stretch of time on the same machine. */
interface ServiceFigures {
  readonly rawTimes: number[];
  readonly sequential: number[];
  /** Median milliseconds of each server stage during the sequential requests. */
  readonly stages: Record<string, number>;
  readonly runs: { concurrency: number; perSecond: number; latencies: number[] }[];
}

/** Sequential latency interleaved with raw inference, then throughput at c=1/4/8, each right after raw runs. */
async function measureService(
  server: { logText: () => string },
  raw: { runOnce: () => Promise<number> },
  post: () => Promise<number>,
  options: Pick<BenchOptions, 'requests' | 'seconds'>,
): Promise<ServiceFigures> {
  for (let i = 0; i < 5; i++) await post();
  const logStart = server.logText().length;
  const [rawTimes, sequential] = await interleaved(raw.runOnce, post, options.requests);
  const stages = stageMedians(server.logText().slice(logStart));
  const runs = [];
  for (const concurrency of [1, 4, 8]) {
    // Raw runs right before each throughput run keep its "raw limit" current.
    for (let i = 0; i < 10; i++) rawTimes.push(await raw.runOnce());
    runs.push({ concurrency, ...(await throughput(post, concurrency, options.seconds)) });
  }
  return { rawTimes, sequential, stages, runs };
}

/** Latency and throughput against raw inference (issue target: p50 ≤ 1.10 × raw, c=8 ≥ 0.90 × raw limit). */
async function benchHttp(options: BenchOptions, imageBytes: Buffer, upload: Upload): Promise<string[]> {
  const modelPath = path.resolve(options.model);
  const threads = os.availableParallelism();
  const server = await startLocalServer({ DETECTD_MODEL: modelPath, DETECTD_LOG_LEVEL: 'info', DETECTD_MAX_PENDING_REQUESTS: '64' });
  try {
    const post = detectionPoster(server.url, server.apiKey, upload);
    for (let i = 0; i < 5; i++) await post();
    const raw = await rawInference(modelPath, threads, imageBytes);
    const { rawTimes, sequential, stages, runs } = await measureService(server, raw, post, options);
    await raw.release();
    const rawMs = median(rawTimes);
    const rawLimit = 1000 / rawMs;
    const p50 = median(sequential);
    return [
      `== http: ${path.basename(modelPath)}, ${path.basename(options.image)} (${imageBytes.length} bytes), ${threads} ORT threads, ${os.cpus()[0]?.model ?? 'cpu'}`,
      `raw ONNX Runtime inference (same process, interleaved with the service's requests): p50 ${fixed(rawMs)} ms, p99 ${fixed(percentile(rawTimes, 99))} ms → single-session limit ${fixed(rawLimit, 2)} req/s`,
      `service, sequential (${options.requests} requests): p50 ${fixed(p50)} ms, p99 ${fixed(percentile(sequential, 99))} ms`,
      `  p50 ratio service / raw inference: ${fixed(p50 / rawMs, 3)}   (target ≤ 1.10)`,
      `  server stage medians (ms): ${Object.entries(stages).map(([stage, ms]) => `${stage} ${fixed(ms, 2)}`).join(', ')}`,
      'throughput:',
      ...runs.map(
        ({ concurrency, perSecond, latencies }) =>
          `  c=${concurrency}: ${fixed(perSecond, 2)} req/s (${fixed(perSecond / rawLimit, 3)} × raw limit), p50 ${fixed(median(latencies))} ms, p99 ${fixed(percentile(latencies, 99))} ms`,
      ),
      `  c=8 ratio to raw limit: ${fixed(runs[2].perSecond / rawLimit, 3)}   (target ≥ 0.90)`,
    ];
  } finally {
    await server.close();
  }
}

/** What a request of the sizes section asks for besides the objects. */
const OUTPUTS = [
  { name: 'objects only', parameter: undefined },
  { name: 'OutputCroppedImage', parameter: 'OutputCroppedImage' },
  { name: 'OutputVisualizedImage', parameter: 'OutputVisualizedImage' },
] as const;

type Output = (typeof OUTPUTS)[number];

/** The request of one row of the sizes section, as base64 JSON or as a multipart form. */
async function sizesUpload(form: BenchOptions['form'], bytes: Buffer, output: Output): Promise<Upload> {
  if (form === 'json') {
    const configurations = output.parameter ? [{ parameter: output.parameter, value: 'true' }] : [];
    return { form: 'base64 JSON', contentType: 'application/json', body: Buffer.from(JSON.stringify({ raw_data: bytes.toString('base64'), configurations })), query: '' };
  }
  const fields = new FormData();
  if (output.parameter) fields.append(output.parameter, 'true');
  fields.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg');
  const encoded = new Request('http://localhost/', { method: 'POST', body: fields });
  return { form: 'multipart form', contentType: encoded.headers.get('content-type')!, body: Buffer.from(await encoded.arrayBuffer()), query: '' };
}

/** Pixel regions the service encodes for `output`: each object's crop, or the whole visualized image. */
async function encodedRegions(url: string, apiKey: string, bytes: Buffer, output: Output): Promise<EncodedRegion[]> {
  if (!output.parameter) return [];
  const { data, width, height } = jpegTurbo.decompressSync(bytes, { format: jpegTurbo.FORMAT_RGB });
  if (output.parameter === 'OutputVisualizedImage') return [{ pixels: data, width, height, rowPixels: width }];
  const response = await fetch(new URL('/api/v1/object-detection', url), {
    method: 'POST',
    headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ raw_data: bytes.toString('base64') }),
  });
  const { detected_objects: objects } = (await response.json()) as { detected_objects: { bounding_box: { left: number; top: number; right: number; bottom: number } }[] };
  return objects.map(({ bounding_box: box }) => ({
    pixels: data.subarray((box.top * width + box.left) * 3),
    width: box.right - box.left,
    height: box.bottom - box.top,
    rowPixels: width,
  }));
}

/**
 * Camera-sized images (issues 11 and 20): the photo as sent, and enlarged to 1920×1080 and
 * 4032×3024 at run time, each with and without crops and the visualized image. Each row sets the
 * service against its physical floor, measured in the same stretch of time: raw inference +
 * libjpeg-turbo's own decode at the scale the service uses (tjbench) + base64 decoding of a JSON
 * body + libjpeg-turbo's own encode of what is sent back; and c=8 throughput against the machine's
 * limit, the cores over the CPU one image needs (inference threads × raw p50 + that floor).
 */
async function benchSizes(options: BenchOptions, imageBytes: Buffer): Promise<string[]> {
  const modelPath = path.resolve(options.model);
  const threads = os.availableParallelism();
  const server = await startLocalServer({ DETECTD_MODEL: modelPath, DETECTD_LOG_LEVEL: 'info', DETECTD_MAX_PENDING_REQUESTS: '64' });
  const { width, height } = await sharp(imageBytes).metadata();
  const images = [
    { name: `${path.basename(options.image)} ${width}×${height}`, bytes: imageBytes },
    { name: '1920×1080 JPEG', bytes: await enlargedJpeg(imageBytes, 1920, 1080) },
    { name: '4032×3024 JPEG', bytes: await enlargedJpeg(imageBytes, 4032, 3024) },
  ];
  const raw = await rawInference(modelPath, threads, imageBytes);
  const lines = [
    `== sizes: ${path.basename(modelPath)}, ${options.form === 'json' ? 'base64 JSON' : 'multipart form'} from ${path.basename(options.image)}, ${threads} ORT threads, ${options.requests} sequential requests interleaved with raw inference, throughput ${options.seconds} s per concurrency; load average at start ${os.loadavg().map((load) => fixed(load, 2)).join(' ')}`,
    'floor = raw p50 + libjpeg-turbo decode at the scale used (tjbench) + base64 decode (JSON) + libjpeg-turbo encode of the crops / visualization; c=8 limit = cores × 1000 / (ORT threads × raw p50 + floor − raw p50)',
    '| image | output | raw p50 ms | decode (scale) + base64 + encode ms | floor ms | service p50 ms | p99 ms | p50 / floor (target) | c=1 req/s | c=4 | c=8 | c=8 limit req/s | c=8 / limit (target 0.95) | server medians ms: decode / preprocess / encode |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  try {
    for (const image of images) {
      const { width: imageWidth = 1, height: imageHeight = 1 } = await sharp(image.bytes).metadata();
      for (const output of OUTPUTS) {
        const upload = await sizesUpload(options.form, image.bytes, output);
        const post = detectionPoster(server.url, server.apiKey, upload);
        const denominator = output.parameter ? 1 : scaleDenominator(imageWidth, imageHeight, raw.inputSide, JPEG_DENOMINATORS);
        const decodeMs = tjbenchDecodeMs(image.bytes, denominator, 1);
        const base64Ms = options.form === 'json' ? base64DecodeMs(image.bytes.toString('base64')) : 0;
        const encodeMs = libjpegEncodeMs(await encodedRegions(server.url, server.apiKey, image.bytes, output));
        const { rawTimes, sequential, stages, runs } = await measureService(server, raw, post, options);
        const rawMs = median(rawTimes);
        const p50 = median(sequential);
        const stage = (name: string) => fixed(stages[name] ?? 0, 1);
        const rate = ({ perSecond }: { perSecond: number }) => fixed(perSecond, 2);
        const target = output.parameter ? 1.25 : 1.1;
        const floorParts = `${decodeMs === undefined ? 'n/a (no tjbench)' : fixed(decodeMs)} (1/${denominator}) + ${fixed(base64Ms)} + ${fixed(encodeMs)}`;
        const floor = decodeMs === undefined ? undefined : rawMs + decodeMs + base64Ms + encodeMs;
        const limit = floor === undefined ? undefined : (threads * 1000) / (threads * rawMs + floor - rawMs);
        const c8 = runs[2].perSecond;
        lines.push(
          `| ${image.name} | ${output.name} | ${fixed(rawMs)} | ${floorParts} | ${floor === undefined ? 'n/a' : fixed(floor)} | ${fixed(p50)} | ${fixed(percentile(sequential, 99))} | ${floor === undefined ? 'n/a' : fixed(p50 / floor, 2)} (≤ ${target}) | ${runs.map(rate).join(' | ')} | ${limit === undefined ? 'n/a' : fixed(limit, 2)} | ${limit === undefined ? 'n/a' : fixed(c8 / limit, 2)} | ${stage('decode')} / ${stage('preprocess')} / ${stage('encode')} |`,
        );
      }
    }
    lines.push(`load average at end ${os.loadavg().map((load) => fixed(load, 2)).join(' ')}`);
    return lines;
  } finally {
    await raw.release();
    await server.close();
  }
}

/** RSS stays flat on the embedded model (issue target: after N requests within 5 % of after 200). */
async function benchMemory(options: BenchOptions, upload: Upload): Promise<string[]> {
  const server = await startLocalServer({ DETECTD_LOG_LEVEL: 'warn' });
  try {
    const post = detectionPoster(server.url, server.apiKey, upload);
    const rssMiB = () => process.memoryUsage().rss / 2 ** 20;
    const latencies: number[] = [];
    const checkpoint = Math.min(200, options.memoryRequests);
    for (let i = 0; i < checkpoint; i++) latencies.push(await post());
    const early = rssMiB();
    for (let i = checkpoint; i < options.memoryRequests; i++) latencies.push(await post());
    const late = rssMiB();
    return [
      `== memory: embedded model (no DETECTD_MODEL), ${options.memoryRequests} sequential requests, server and client in this process`,
      `RSS after ${checkpoint}: ${fixed(early)} MiB; after ${options.memoryRequests}: ${fixed(late)} MiB; change ${fixed(((late - early) / early) * 100, 2)} %   (target within ±5 %)`,
      `latency p50 ${fixed(median(latencies))} ms, p99 ${fixed(percentile(latencies, 99))} ms`,
    ];
  } finally {
    await server.close();
  }
}

/** The photo scaled to `width` × `height`, JPEG quality 90: a camera-sized upload, made at run time. */
const enlargedJpeg = (imageBytes: Buffer, width: number, height: number) => sharp(imageBytes).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();

/** Base64 JSON, raw body and multipart form of the same image, side by side (same server, interleaved). */
async function benchUploads(options: BenchOptions, imageBytes: Buffer): Promise<string[]> {
  const modelPath = path.resolve(options.model);
  const server = await startLocalServer({ DETECTD_MODEL: modelPath, DETECTD_LOG_LEVEL: 'info', DETECTD_MAX_PENDING_REQUESTS: '64' });
  const lines = [`== uploads: ${path.basename(modelPath)}, POST /api/v1/object-detection, the same image as base64 JSON, raw body and multipart form`];
  try {
    const photos = [
      { name: path.basename(options.image), bytes: imageBytes },
      { name: `12 MP JPEG (4000×3000, q90, from ${path.basename(options.image)})`, bytes: await enlargedJpeg(imageBytes, 4000, 3000) },
    ];
    for (const photo of photos) {
      const uploads = await uploadForms(photo.bytes);
      const posts = uploads.map((upload) => detectionPoster(server.url, server.apiKey, upload));
      for (const post of posts) for (let i = 0; i < 3; i++) await post();
      const logStart = server.logText().length;
      const sequential: number[][] = uploads.map(() => []);
      // Blocks of each form in turn, so that all three see the same machine.
      while (sequential[0].length < options.uploadRequests) {
        for (const [index, post] of posts.entries()) for (let i = 0; i < 3; i++) sequential[index].push(await post());
      }
      const logLines = server.logText().slice(logStart).split('\n');
      lines.push(`${photo.name}, ${photo.bytes.length} bytes:`);
      for (const [index, upload] of uploads.entries()) {
        const { perSecond } = await throughput(posts[index], 4, options.seconds);
        const times = sequential[index];
        // The server's own log lines of this form (told apart by their body size): the time to receive and parse the body, and base64's decoding.
        const stages = stageMedians(logLines.filter((line) => line.includes(`"bytes_in":${upload.body.length},`)).join('\n'));
        const serverSide = `receive ${fixed(stages.receive ?? 0, 2)} ms${stages.base64 === undefined ? '' : ` + base64 ${fixed(stages.base64, 2)} ms`}, image decode ${fixed(stages.decode ?? 0, 1)} ms`;
        lines.push(
          `  ${upload.form.padEnd(15)} body ${String(upload.body.length).padStart(9)} bytes: sequential p50 ${fixed(median(times))} ms, p99 ${fixed(percentile(times, 99))} ms; c=4 ${fixed(perSecond, 2)} req/s; server medians: ${serverSide}`,
        );
      }
    }
    return lines;
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const options = parseOptions();
  const imageBytes = fs.readFileSync(options.image);
  const upload = jsonUpload(imageBytes);
  const allocator = process.env.LD_PRELOAD?.includes('jemalloc') ? `jemalloc (MALLOC_CONF=${process.env.MALLOC_CONF})` : 'system malloc';
  const report: string[] = [`detectd bench — ${new Date().toISOString()} — the server in this process on ${allocator}, as npm start runs it`];
  if (options.sections.includes('http')) report.push('', ...(await benchHttp(options, imageBytes, upload)));
  if (options.sections.includes('sizes')) report.push('', ...(await benchSizes(options, imageBytes)));
  if (options.sections.includes('memory')) report.push('', ...(await benchMemory(options, upload)));
  if (options.sections.includes('uploads')) report.push('', ...(await benchUploads(options, imageBytes)));
  if (options.sections.includes('stream')) {
    const models = ['../shared/models/yolox-nano-416.onnx', options.model].map((file) => path.resolve(file));
    const figures = await runStreamBenchmark({ models, image: options.image, seconds: options.seconds, streams: 8 });
    report.push('', '== stream: WebSocket, 640×480 pan at 30 fps (goal: ≥ 15 processed fps, p50 < 100 ms with the fast model)', ...describeStreamFigures(figures));
  }
  if (options.sections.includes('faces')) {
    report.push('', ...(await runFaceBenchmark({ objectModel: options.model, faceModel: options.faceModel, requests: options.requests, threads: os.availableParallelism() })));
  }
  process.stdout.write(report.join('\n') + '\n');
}

// The service is measured on the allocator `npm start` gives it.
if (!relaunchOnJemalloc(fileURLToPath(import.meta.url))) await main();
