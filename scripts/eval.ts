/**
 * `npm run eval`: COCO bbox accuracy of detectd measured through its HTTP API.
 * Every image of a COCO-format dataset folder is posted to /api/v1/object-detection
 * and the answers are scored with the pycocotools method (scripts/coco-map.ts).
 */
import './lib/typescript-workers.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import sharp from 'sharp';
import { Command, InvalidArgumentError, Option } from 'commander';
import { evaluateDetections, type CocoDataset, type CocoMetrics, type Detection } from './coco-map.js';
import { DEFAULT_FACE_DATASET, evaluateFaceModels, printCalibration, printFaceTable } from './face-eval.js';
import { evaluateRegistrationQuality } from './registration-quality-eval.js';
import { printRecognitionTable, type RecognitionScore, scoreRecognition } from './face-recognition-eval.js';
import { startLocalServer } from './lib/local-server.js';
import { evaluatePlates } from './plate-eval.js';
import { evaluateKnownPlates } from './known-plate-eval.js';
import { evaluateUnknownFaces } from './unknown-faces-eval.js';
import { evaluatePhantomFaces } from './phantom-faces-eval.js';
import { evaluateFaceScale } from './face-scale-eval.js';
import { evaluateStates } from './states-eval.js';

/** Face models whose recognition is measured beside the embedded one's: RetinaFace (five landmarks) and UltraFace (none: face-api's 68-point net marks its faces). */
const RECOGNITION_FACE_MODELS = ['../shared/models/faces/retinaface-mnet025.onnx', '../shared/models/faces/ultraface-rfb-640.onnx'];

interface EvalOptions {
  dataset?: string;
  faces?: boolean;
  plates?: boolean;
  knownPlates?: boolean;
  unknownFaces?: boolean;
  phantomFaces?: boolean;
  registration?: boolean;
  faceScale?: boolean;
  states?: boolean;
  tune?: boolean;
  replay?: boolean;
  namedFaces?: number;
  calibrate?: boolean;
  recognition: boolean;
  model?: string;
  url?: string;
  apiKey?: string;
  threshold: number;
  concurrency: number;
  limit?: number;
  enlarge: number;
  json?: string;
}

/** The part of the detection response the evaluator reads. */
interface DetectionResponse {
  detected_objects: {
    name: string;
    confidence: number;
    bounding_box: { left: number; right: number; top: number; bottom: number };
  }[];
}

/** The server being evaluated: where it answers and with which key. */
interface Target {
  readonly url: string;
  readonly apiKey: string;
}

interface ImageRun {
  detections: Detection[];
  unknownLabels: string[];
  latencyMs: number;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

function fraction(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError('expected a number in [0, 1]');
  return parsed;
}

function parseOptions(): EvalOptions {
  const program = new Command('eval')
    .description('Measure COCO bbox AP of detectd through its HTTP API')
    .option('--dataset <dir>', `folder with images/ and a COCO annotations.json (with --faces: a WIDER FACE folder, default ${DEFAULT_FACE_DATASET})`)
    .option('--faces', 'measure faces instead: detection AP by face height of the embedded face model and each face model (--model, else ../shared/models/faces/*), then recognition (closed and open set) with the embedded model and RetinaFace and UltraFace (or --model)')
    .option('--plates', 'measure licence plates instead, through POST /v1/image/alpr: found, read exactly, O ≡ 0, within one character, per region, on both halves of ../shared/eval/plates as close-ups and as far-camera 1080p frames; false plates on vehicle-free photos; p50 of far frames against close-ups (scripts/plate-eval.ts)')
    .option('--known-plates', 'measure known plates instead: half of the plates of ../shared/eval/plates added as known plates, every close-up and far frame through POST /v1/image/alpr; of registered plates found, the share named right; of unregistered ones, the share named at all; before (exact text) and after, per half (scripts/known-plate-eval.ts)')
    .option('--unknown-faces', 'measure unknown people instead: grouping (pairwise precision, largest group\'s share) and naming after it, on a TUNE and a CHECK half of ../shared/eval/faces, through the REST routes (scripts/unknown-faces-eval.ts)')
    .option('--phantom-faces', 'measure phantom faces instead: faces found at 0.4 and 0.5 through POST /v1/vision/face on photos with no person (coco-val122, coco128, eval/photos), and on the group photos and crops of ../shared/eval/faces (scripts/phantom-faces-eval.ts)')
    .option('--registration', 'measure the registration quality check instead: the describer on the shared crops made worse, by sharpness; WIDER faces refused and weak by annotated blur and size, on a TUNE and a CONFIRM half; ordinary photos made from the group photos accepted; now and before (scripts/registration-quality-eval.ts)')
    .option('--face-scale', 'measure the similarity scale instead: same-person and different-person pairs of ../shared/eval/faces (and WIDER strangers) on DeepStack\'s reading (same > 0.65, different < 0.55), internal and reported, on the TUNE and CHECK halves (scripts/face-scale-eval.ts)')
    .option('--states', 'measure states of fixed regions taught by example instead: each parking space of ../shared/eval/states/pklot-pucpr taught from September, judged on October (TUNE) and November (CONFIRM): right, unsure, wrong per space and overall, 5/10/20 examples spread or first in time; p50 per frame of 100 regions against one yolo26n-640 pass (scripts/states-eval.ts)')
    .option('--tune', 'with --states: also print the grid the method was chosen from, on the TUNE split')
    .option('--replay', 'with --unknown-faces: also print the grouping figures of other rules on the TUNE half')
    .option('--named-faces <n>', 'with --unknown-faces: how many best faces naming registers (default: the server\'s)', positiveInteger)
    .option('--calibrate', 'with --faces: also print each face model\'s share of faces by raw score (its calibration points)')
    .option('--no-recognition', 'with --faces: detection only')
    .addOption(new Option('--model <file>', 'ONNX model for the launched server (default: its embedded model)').conflicts('url'))
    .option('--url <url>', 'use this running server instead of launching one')
    .option('--api-key <key>', 'API key for --url')
    .option('--threshold <value>', 'ConfidenceThreshold sent with every request', fraction, 0.001)
    .option('--concurrency <n>', 'requests in flight at once', positiveInteger, 2)
    .option('--limit <n>', 'evaluate only the first N images of the annotation file', positiveInteger)
    .option('--enlarge <factor>', 'send every image enlarged by this factor (JPEG q90, made at run time) and scale the boxes back: camera-sized inputs', positiveInteger, 1)
    .option('--json <file>', 'also write the results to this JSON file')
    .parse();
  const options = program.opts<EvalOptions>();
  if ((options.url === undefined) !== (options.apiKey === undefined)) program.error('--url and --api-key go together');
  if (options.dataset === undefined && !options.faces && !options.plates && !options.knownPlates && !options.unknownFaces && !options.phantomFaces && !options.registration && !options.faceScale && !options.states) program.error("required option '--dataset <dir>' not specified");
  if (options.plates && (options.url !== undefined || options.faces || options.dataset !== undefined)) program.error('--plates measures the plate models on ../shared/eval/plates: no --url, --faces or --dataset');
  if (options.knownPlates && (options.url !== undefined || options.faces || options.plates || options.dataset !== undefined)) program.error('--known-plates measures known plates on ../shared/eval/plates: no --url, --faces, --plates or --dataset');
  if (options.faces && options.url !== undefined) program.error('--faces measures the models themselves: no --url');
  return options;
}

/** Loads annotations.json, restricted to the first `limit` images so unseen images' boxes don't count as misses. */
async function loadDataset(folder: string, limit: number | undefined): Promise<CocoDataset> {
  const full = JSON.parse(await readFile(path.join(folder, 'annotations.json'), 'utf8')) as CocoDataset;
  const images = full.images.slice(0, limit);
  const imageIds = new Set(images.map((image) => image.id));
  return { ...full, images, annotations: full.annotations.filter((annotation) => imageIds.has(annotation.image_id)) };
}

/** The image file's bytes, or the image `factor` times larger as a quality-90 JPEG. */
async function imageBytes(imagePath: string, factor: number): Promise<Buffer> {
  const bytes = await readFile(imagePath);
  if (factor === 1) return bytes;
  const { width = 1, height = 1 } = await sharp(bytes).metadata();
  return sharp(bytes).resize(width * factor, height * factor).jpeg({ quality: 90 }).toBuffer();
}

async function detectImage(
  server: Target,
  imagePath: string,
  imageId: number,
  options: Pick<EvalOptions, 'threshold' | 'enlarge'>,
  categoryIdByName: ReadonlyMap<string, number>,
): Promise<ImageRun> {
  const threshold = options.threshold;
  const body = JSON.stringify({
    raw_data: (await imageBytes(imagePath, options.enlarge)).toString('base64'),
    configurations: [{ parameter: 'ConfidenceThreshold', value: String(threshold) }],
  });
  const started = performance.now();
  const response = await fetch(`${server.url}/api/v1/object-detection`, {
    method: 'POST',
    headers: { Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json' },
    body,
  });
  const text = await response.text();
  const latencyMs = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path.basename(imagePath)}: HTTP ${response.status}\n${text}`);

  const run: ImageRun = { detections: [], unknownLabels: [], latencyMs };
  for (const object of (JSON.parse(text) as DetectionResponse).detected_objects) {
    const categoryId = categoryIdByName.get(object.name);
    if (categoryId === undefined) {
      run.unknownLabels.push(object.name);
      continue;
    }
    // Boxes of an enlarged image, back in the annotations' pixels.
    const { left, right, top, bottom } = object.bounding_box;
    const [x1, x2, y1, y2] = [left, right, top, bottom].map((edge) => edge / options.enlarge);
    run.detections.push({ image_id: imageId, category_id: categoryId, bbox: [x1, y1, x2 - x1, y2 - y1], score: object.confidence });
  }
  return run;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. Stops at the first error. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function percent(value: number): string {
  return value < 0 ? 'n/a' : (value * 100).toFixed(1);
}

function printReport(images: number, detections: number, metrics: CocoMetrics, meanLatencyMs: number, concurrency: number): void {
  const rows: [string, string][] = [
    ['images', String(images)],
    ['detections', String(detections)],
    ...Object.entries(metrics).map(([name, value]): [string, string] => [name, percent(value)]),
    ['latency', `${meanLatencyMs.toFixed(1)} ms mean per request (concurrency ${concurrency})`],
  ];
  for (const [name, value] of rows) console.log(`${name.padEnd(12)}${value}`);
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (options.plates) {
    await evaluatePlates(options.limit);
    return;
  }
  if (options.knownPlates) {
    await evaluateKnownPlates(options.limit);
    return;
  }
  if (options.states) {
    await evaluateStates(Boolean(options.tune));
    return;
  }
  if (options.registration) {
    await evaluateRegistrationQuality();
    return;
  }
  if (options.phantomFaces) {
    await evaluatePhantomFaces(options.model);
    return;
  }
  if (options.faceScale) {
    await evaluateFaceScale();
    return;
  }
  if (options.unknownFaces) {
    await evaluateUnknownFaces(Boolean(options.replay), options.namedFaces);
    return;
  }
  if (options.faces) {
    const detection = await evaluateFaceModels(options.dataset ?? DEFAULT_FACE_DATASET, options.model === undefined ? undefined : [options.model], options.limit);
    printFaceTable(detection);
    if (options.calibrate) printCalibration(detection);
    if (!options.recognition) return;
    const scores: RecognitionScore[] = [];
    for (const model of [undefined, ...(options.model === undefined ? RECOGNITION_FACE_MODELS : [options.model])]) scores.push(await scoreRecognition(model));
    printRecognitionTable(scores);
    return;
  }
  // parseOptions insists on --dataset without --faces.
  const datasetFolder = options.dataset!;
  const dataset = await loadDataset(datasetFolder, options.limit);
  const categoryIdByName = new Map(dataset.categories.map((category) => [category.name, category.id]));

  // Without --url: the real server in this process, on a loopback port, with a scratch database.
  const server: Target & { close(): Promise<void> } =
    options.url !== undefined && options.apiKey !== undefined
      ? { url: options.url.replace(/\/+$/, ''), apiKey: options.apiKey, close: async () => {} }
      : await startLocalServer({ DETECTD_LOG_LEVEL: 'warn', DETECTD_MAX_BODY_BYTES: String(256 * 1024 * 1024), ...(options.model ? { DETECTD_MODEL: path.resolve(options.model) } : {}) });
  const progress = new cliProgress.SingleBar(
    { format: 'eval |{bar}| {value}/{total} images | ETA {eta_formatted}', stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  try {
    progress.start(dataset.images.length, 0);
    const runs = await mapConcurrently(dataset.images, options.concurrency, async (image) => {
      const imagePath = path.join(datasetFolder, 'images', image.file_name);
      const run = await detectImage(server, imagePath, image.id, options, categoryIdByName);
      progress.increment();
      return run;
    });
    progress.stop();

    const detections = runs.flatMap((run) => run.detections);
    const unknownLabels = new Set(runs.flatMap((run) => run.unknownLabels));
    if (unknownLabels.size > 0) {
      console.error(`warning: skipped labels not among the dataset's categories: ${[...unknownLabels].join(', ')}`);
    }
    const metrics = evaluateDetections(dataset, detections);
    const meanLatencyMs = runs.reduce((sum, run) => sum + run.latencyMs, 0) / Math.max(1, runs.length);
    printReport(dataset.images.length, detections.length, metrics, meanLatencyMs, options.concurrency);

    if (options.json !== undefined) {
      const report = {
        dataset: path.resolve(datasetFolder),
        model: options.model === undefined ? null : path.resolve(options.model),
        url: options.url ?? null,
        threshold: options.threshold,
        enlarge: options.enlarge,
        concurrency: options.concurrency,
        images: dataset.images.length,
        detections: detections.length,
        metrics,
        meanLatencyMs,
      };
      await writeFile(options.json, `${JSON.stringify(report, null, 2)}\n`);
    }
  } finally {
    progress.stop();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
