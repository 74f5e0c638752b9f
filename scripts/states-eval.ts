/**
 * `npm run eval -- --states`: states of fixed regions taught by example, on the parking camera of
 * ../shared/eval/states/pklot-pucpr (100 spaces, empty or occupied). Each space is taught from
 * September frames and judged on October (the TUNE split: where the input size, the mask, k and
 * the margin were chosen) and November (the CONFIRM split: measured only). Reported: right,
 * unsure and wrong, overall and per space; 5, 10 and 20 examples per state, spread over September
 * or the first ones in time (one or two days). Speed: p50 per frame of 100 regions (crops,
 * embedding in one batch, nearest examples) against one yolo26n-640 pass (letterbox and
 * inference) on the same frame, in alternating blocks.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { ultralytics } from '../src/models/families/boxes/ultralytics.js';
import { sessionOptions } from '../src/models/runtimes/onnx/onnx-session-options.js';
import { decodeImage, type DecodedImage } from '../src/vision/decode.js';
import { letterboxInto } from '../src/vision/letterbox.js';
import { judgeState, type JudgeSettings, normalise, type StateExamples } from '../src/features/states/nearest-state.js';
import { withFreeInputSize } from '../src/models/runtimes/onnx/onnx-free-input.js';
import { cropsInto } from '../src/vision/crops.js';
import type { Box, Point } from '../src/vision/image.js';
import { percentile } from './lib/bench-numbers.js';

const DATASET = '../shared/eval/states/pklot-pucpr';
const EMBEDDER = '../shared/models/embedders/mobilenetv2-12-int8-emb.onnx';
const DETECTOR = '../shared/models/yolo26n-640-int8.onnx';
const IMAGENET = { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] } as const;
const TEACH_MONTH = '2012-09';
const SPLITS = [
  { name: 'TUNE', month: '2012-10' },
  { name: 'CONFIRM', month: '2012-11' },
] as const;
const COUNTS = [5, 10, 20];
const TIMED_FRAMES = 40;

/** The method measured: embedder input, whether the polygon masks the box, and the judgement. */
export interface StatesMethod {
  readonly size: number;
  readonly mask: boolean;
  readonly judge: JudgeSettings;
}

/** The method chosen on the TUNE split (docs/states.md). */
const CHOSEN: StatesMethod = { size: 64, mask: true, judge: { neighbours: 3, margin: 0.02 } };

interface Labelled {
  readonly file: string;
  readonly state: string;
  readonly region_id: string;
  readonly region: [number, number, number, number];
  readonly polygon: [number, number][];
}

type Selection = 'spread' | 'first';

interface Tally {
  right: number;
  unsure: number;
  wrong: number;
}

/** `items` grouped by `key`, groups and items in their first order. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const monthOf = (entry: Labelled) => path.basename(entry.file).slice(0, 7);
const keyOf = (entry: Labelled) => `${entry.file}|${entry.region_id}`;

function shapeOf(entry: Labelled, mask: boolean): RegionShape {
  const [x, y, w, h] = entry.region;
  return { box: { left: x, top: y, right: x + w, bottom: y + h }, polygon: mask ? entry.polygon.map(([px, py]) => ({ x: px, y: py })) : undefined };
}

/** A region as the crops take it: its box, and its polygon when masked. */
interface RegionShape {
  readonly box: Box;
  readonly polygon?: readonly Point[];
}

async function embedderSession(threads: number): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(await withFreeInputSize(EMBEDDER), sessionOptions(threads));
}

/** L2-normalised embeddings of `regions` of `image`, embedded in one batch (the crops as the embedder family samples them). */
async function embedRegions(session: ort.InferenceSession, image: DecodedImage, regions: readonly RegionShape[], size: number): Promise<Float32Array[]> {
  const batch = new Float32Array(regions.length * 3 * size * size);
  cropsInto(image, { crops: regions.map((region) => region.box), width: size, height: size, normalise: IMAGENET, polygons: regions.map((region) => region.polygon) }, batch);
  const output = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', batch, [regions.length, 3, size, size]) });
  const embedding = output.embedding.data as Float32Array;
  const dimensions = embedding.length / regions.length;
  return regions.map((_, n) => normalise(embedding.slice(n * dimensions, (n + 1) * dimensions)));
}

/** Every labelled region of every frame, embedded a frame at a time. */
async function embedAll(entries: readonly Labelled[], size: number, mask: boolean): Promise<Map<string, Float32Array>> {
  const session = await embedderSession(1);
  const embeddings = new Map<string, Float32Array>();
  const byFile = groupBy(entries, (entry) => entry.file);
  for (const [file, labelled] of byFile) {
    const image = await decodeImage(await readFile(path.join(DATASET, file)), { maxPixels: 1e8 });
    const vectors = await embedRegions(session, image, labelled.map((entry) => shapeOf(entry, mask)), size);
    image.release();
    labelled.forEach((entry, n) => embeddings.set(keyOf(entry), vectors[n]));
  }
  await session.release();
  return embeddings;
}

/** `count` of `items`: evenly spaced over them, or the first ones. */
function pick<T>(items: readonly T[], count: number, selection: Selection): T[] {
  if (items.length <= count || selection === 'first') return items.slice(0, count);
  return Array.from({ length: count }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / count)]);
}

/** Per space, its taught examples per state: `count` of its September frames of that state, in time order. */
function teach(taught: readonly Labelled[], embeddings: ReadonlyMap<string, Float32Array>, count: number, selection: Selection): Map<string, StateExamples[]> {
  const bySpace = new Map<string, StateExamples[]>();
  for (const [space, entries] of groupBy(taught, (entry) => entry.region_id)) {
    const states = [...groupBy(entries, (entry) => entry.state)].map(([state, ofState]) => {
      const chosen = pick([...ofState].sort((a, b) => a.file.localeCompare(b.file)), count, selection);
      const vectors = chosen.map((entry) => embeddings.get(keyOf(entry))!);
      const flat = new Float32Array(vectors.length * (vectors[0]?.length ?? 0));
      vectors.forEach((vector, n) => flat.set(vector, n * vector.length));
      return { state, embeddings: flat };
    });
    bySpace.set(space, states);
  }
  return bySpace;
}

/** Right, unsure and wrong per space over `judged`. */
function judge(judged: readonly Labelled[], taught: ReadonlyMap<string, StateExamples[]>, embeddings: ReadonlyMap<string, Float32Array>, settings: JudgeSettings): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const entry of judged) {
    const tally = tallies.get(entry.region_id) ?? { right: 0, unsure: 0, wrong: 0 };
    tallies.set(entry.region_id, tally);
    const { state } = judgeState(embeddings.get(keyOf(entry))!, taught.get(entry.region_id) ?? [], settings);
    if (state === undefined) tally.unsure++;
    else if (state === entry.state) tally.right++;
    else tally.wrong++;
  }
  return tallies;
}

function total(tallies: Iterable<Tally>): Tally {
  const sum = { right: 0, unsure: 0, wrong: 0 };
  for (const tally of tallies) {
    sum.right += tally.right;
    sum.unsure += tally.unsure;
    sum.wrong += tally.wrong;
  }
  return sum;
}

function shares(tally: Tally): string {
  const all = tally.right + tally.unsure + tally.wrong;
  const share = (value: number) => `${((100 * value) / Math.max(1, all)).toFixed(1).padStart(5)} %`;
  return `right ${share(tally.right)}  unsure ${share(tally.unsure)}  wrong ${share(tally.wrong)}  (${all})`;
}

/** The grid the method was chosen from, on the TUNE split only: 20 spread examples. */
async function printTuning(entries: readonly Labelled[]): Promise<void> {
  const taughtEntries = entries.filter((entry) => monthOf(entry) === TEACH_MONTH);
  const tuneEntries = entries.filter((entry) => monthOf(entry) === SPLITS[0].month);
  console.log(`== tuning on ${SPLITS[0].name} (${SPLITS[0].month}), taught 20 spread September examples per state`);
  for (const size of [64, 96, 128, 224]) {
    for (const mask of [false, true]) {
      const embeddings = await embedAll([...taughtEntries, ...tuneEntries], size, mask);
      const taught = teach(taughtEntries, embeddings, 20, 'spread');
      for (const neighbours of [1, 3, 5]) {
        for (const margin of [0, 0.01, 0.02, 0.03, 0.05]) {
          const tally = total(judge(tuneEntries, taught, embeddings, { neighbours, margin }).values());
          console.log(`size ${String(size).padStart(3)}  mask ${mask ? 'yes' : 'no '}  k ${neighbours}  margin ${margin.toFixed(2)}  ${shares(tally)}`);
        }
      }
    }
  }
}

/** The chosen method on both splits, every count and selection, and per space on 20 spread. */
async function printAccuracy(entries: readonly Labelled[], method: StatesMethod): Promise<void> {
  const embeddings = await embedAll(entries, method.size, method.mask);
  const taughtEntries = entries.filter((entry) => monthOf(entry) === TEACH_MONTH);
  console.log(`== accuracy: input ${method.size}², polygon mask ${method.mask ? 'on' : 'off'}, k ${method.judge.neighbours}, margin ${method.judge.margin}; taught from ${TEACH_MONTH}`);
  const perSpace = new Map<string, Map<string, Tally>>();
  for (const split of SPLITS) {
    const judged = entries.filter((entry) => monthOf(entry) === split.month);
    for (const selection of ['spread', 'first'] as const) {
      for (const count of COUNTS) {
        const tallies = judge(judged, teach(taughtEntries, embeddings, count, selection), embeddings, method.judge);
        if (count === 20 && selection === 'spread') perSpace.set(split.name, tallies);
        console.log(`${split.name.padEnd(7)} ${split.month}  ${String(count).padStart(2)} ${selection.padEnd(6)}  ${shares(total(tallies.values()))}`);
      }
    }
  }
  console.log('== per space, 20 spread examples (TUNE | CONFIRM): right/unsure/wrong');
  const spaces = [...new Set(entries.map((entry) => entry.region_id))].sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
  const cell = (tally: Tally | undefined) => (tally === undefined ? '–' : `${tally.right}/${tally.unsure}/${tally.wrong}`).padEnd(9);
  const lines = spaces.map((space) => `${space.padEnd(9)} ${SPLITS.map((split) => cell(perSpace.get(split.name)?.get(space))).join(' ')}`);
  for (let i = 0; i < lines.length; i += 4) console.log(lines.slice(i, i + 4).join('   '));
}

/** p50 per frame of 100 regions against one yolo26n-640 pass, alternating blocks of 6 on one frame. */
async function printSpeed(entries: readonly Labelled[], method: StatesMethod): Promise<void> {
  const threads = os.availableParallelism();
  const frameFile = entries.find((entry) => monthOf(entry) === SPLITS[0].month)!.file;
  const image = await decodeImage(await readFile(path.join(DATASET, frameFile)), { maxPixels: 1e8 });
  const spaces = [...groupBy(entries, (entry) => entry.region_id).values()].map((ofSpace) => ofSpace[0]);
  const regions = spaces.map((entry) => shapeOf(entry, method.mask));
  const embedder = await embedderSession(threads);
  // Twenty examples of each state per region: a query's work is that of 20 spread examples.
  const examples = (await embedRegions(embedder, image, regions, method.size)).map((vector) => {
    const flat = new Float32Array(20 * vector.length);
    for (let n = 0; n < 20; n++) flat.set(vector, n * vector.length);
    return [
      { state: 'empty', embeddings: flat },
      { state: 'occupied', embeddings: flat },
    ];
  });
  const states = async () => {
    const started = performance.now();
    const vectors = await embedRegions(embedder, image, regions, method.size);
    vectors.forEach((vector, n) => judgeState(vector, examples[n], method.judge));
    return performance.now() - started;
  };
  const detector = await ort.InferenceSession.create(DETECTOR, sessionOptions(threads));
  const side = 640;
  const tensor = new Float32Array(3 * side * side);
  const yolo = async () => {
    const started = performance.now();
    letterboxInto(image, ultralytics.letterbox({ width: side, height: side }), tensor);
    await detector.run({ [detector.inputNames[0]]: new ort.Tensor('float32', tensor, [1, 3, side, side]) });
    return performance.now() - started;
  };
  const [statesMs, yoloMs] = [[] as number[], [] as number[]];
  while (statesMs.length < TIMED_FRAMES) {
    // The first run of each block is not counted: the other session's threads still spin after its last.
    for (const [run, times] of [[states, statesMs], [yolo, yoloMs]] as const) {
      await run();
      for (let i = 1; i < 6; i++) times.push(await run());
    }
  }
  const [statesP50, yoloP50] = [percentile(statesMs, 50), percentile(yoloMs, 50)];
  console.log(`== speed: ${path.basename(frameFile)}, ${regions.length} regions at ${method.size}², ${threads} ORT threads, ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  console.log(`states p50 ${statesP50.toFixed(1)} ms per frame (crops, one batch, nearest examples)  yolo26n-640 p50 ${yoloP50.toFixed(1)} ms (letterbox, inference)  ratio ${(statesP50 / yoloP50).toFixed(2)}`);
  image.release();
  await embedder.release();
  await detector.release();
}

export async function evaluateStates(tune: boolean): Promise<void> {
  const entries = JSON.parse(await readFile(path.join(DATASET, 'index.json'), 'utf8')) as Labelled[];
  if (tune) await printTuning(entries);
  await printAccuracy(entries, CHOSEN);
  await printSpeed(entries, CHOSEN);
}
