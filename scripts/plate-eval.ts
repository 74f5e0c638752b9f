/**
 * `npm run eval -- --plates`: licence-plate recognition measured through the served path, as
 * CodeProject.AI's clients (and the acceptance checks) call it — each image posted to
 * `POST /v1/image/alpr` in `upload` on a real server whose models folder holds the plate pair of
 * ../shared/models/plates. Two sets of the same labelled photos (../shared/eval/plates, one plate
 * an image): the **close-ups** as they are, and the **far-camera frames** (lib/far-plate-frames.ts:
 * each photo shrunk so its plate is 40–72 px wide inside a 1920 × 1080 JPEG). Both split into
 * halves — `tune` (where the reader's filter and the windows were chosen) and `check` (measured
 * only) — and scored as that folder's README says: plate found (IoU ≥ 0.5), read exactly, exactly
 * with O ≡ 0, within one character, per region. False plates: the photos of
 * ../shared/eval/coco-val122 with no car, truck, bus or motorcycle among their official boxes (the
 * first 100 by name). Speed: the call's p50 on far frames against close-ups, posted alternately.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FoundPlate } from '../src/features/plates/read-plates.js';
import { plateCharacters } from '../src/features/plates/read-plates.js';
import type { Box } from '../src/vision/image.js';
import { distance as editDistance } from 'fastest-levenshtein';
import { percentile } from './lib/bench-numbers.js';
import { farPlateSet } from './lib/far-plate-frames.js';
import { startLocalServer } from './lib/local-server.js';
import { plateModelsFolder } from './lib/plate-models-folder.js';

export const PLATE_MODELS = { detector: '../shared/models/plates/yolo-v9-t-416-license-plates-end2end-int8.onnx', reader: '../shared/models/plates/cct_xs_v2_global.onnx' };
export const PLATE_DATASET = '../shared/eval/plates';
const COCO_DATASET = '../shared/eval/coco-val122';
const VEHICLES = new Set(['car', 'truck', 'bus', 'motorcycle']);
const VEHICLE_FREE_IMAGES = 100;
/** The detector's floor (its authors' default, ../shared/models/plates/README.md). */
export const PLATE_MIN_SCORE = 0.25;
/** The construction of the far-camera frames: another seed builds another set of the same photos. */
export const FAR_SEED = 'far-1';

export interface LabelledPlateImage {
  readonly file: string;
  readonly region: string;
  readonly plate: string;
  /** Labelled box, image pixels. */
  readonly box: Box;
}

/** The benchmark's images, each with its one labelled plate. */
export async function readPlateBenchmark(folder: string): Promise<LabelledPlateImage[]> {
  const { images } = JSON.parse(await readFile(path.join(folder, 'annotations.json'), 'utf8')) as {
    images: { file: string; region: string; plates: { plate: string; bbox: [number, number, number, number] }[] }[];
  };
  return images.map(({ file, region, plates: [{ plate, bbox: [x, y, w, h] }] }) => ({ file, region, plate, box: { left: x, top: y, right: x + w, bottom: y + h } }));
}

/** Two halves of every region: images sorted by sha256 of their file name, alternately `tune` and `check`. */
export function splitHalves(images: readonly LabelledPlateImage[]): { tune: LabelledPlateImage[]; check: LabelledPlateImage[] } {
  const key = (image: LabelledPlateImage) => createHash('sha256').update(image.file).digest('hex');
  const halves = { tune: [] as LabelledPlateImage[], check: [] as LabelledPlateImage[] };
  for (const region of new Set(images.map((image) => image.region))) {
    const sorted = images.filter((image) => image.region === region).sort((a, b) => key(a).localeCompare(key(b)));
    sorted.forEach((image, index) => (index % 2 === 0 ? halves.tune : halves.check).push(image));
  }
  return halves;
}

/** The COCO photos, first by file name, each marked whether a car, truck, bus or motorcycle is among its official boxes. */
async function imagesOfCoco(folder: string): Promise<{ file: string; vehicle: boolean }[]> {
  const coco = JSON.parse(await readFile(path.join(folder, 'annotations.json'), 'utf8')) as {
    images: { id: number; file_name: string }[];
    annotations: { image_id: number; category_id: number }[];
    categories: { id: number; name: string }[];
  };
  const vehicleIds = new Set(coco.categories.filter((category) => VEHICLES.has(category.name)).map((category) => category.id));
  const withVehicle = new Set(coco.annotations.filter((box) => vehicleIds.has(box.category_id)).map((box) => box.image_id));
  return coco.images
    .map((image) => ({ file: path.join(folder, 'images', image.file_name), vehicle: withVehicle.has(image.id) }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** The answered plate over the labelled one (the highest IoU, at least 0.5); undefined when it was not found. */
export function plateOver<Plate extends FoundPlate>(plates: readonly Plate[], image: LabelledPlateImage): Plate | undefined {
  return plates.map((plate) => ({ plate, iou: iou(plate.box, image.box) })).filter((match) => match.iou >= 0.5).sort((a, b) => b.iou - a.iou)[0]?.plate;
}

function iou(a: Box, b: Box): number {
  const overlap = Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const area = (box: Box) => (box.right - box.left) * (box.bottom - box.top);
  return overlap / (area(a) + area(b) - overlap);
}

/** How one labelled image was read: the plate over the label (highest IoU, at least 0.5), if any. */
interface ImageOutcome {
  readonly image: LabelledPlateImage;
  /** Every plate the server answered. */
  readonly plates: readonly FoundPlate[];
}

interface Score {
  readonly images: number;
  readonly found: number;
  readonly exact: number;
  readonly exactOZero: number;
  readonly withinOne: number;
  readonly anywhere: number;
}

function score(outcomes: readonly ImageOutcome[]): Score {
  const tally = { images: outcomes.length, found: 0, exact: 0, exactOZero: 0, withinOne: 0, anywhere: 0 };
  for (const { image, plates } of outcomes) {
    const label = plateCharacters(image.plate);
    if (plates.some((plate) => plate.text === label)) tally.anywhere++;
    const over = plateOver(plates, image);
    if (!over) continue;
    tally.found++;
    const text = over.text;
    if (text === label) tally.exact++;
    if (text.replaceAll('O', '0') === label.replaceAll('O', '0')) tally.exactOZero++;
    if (editDistance(text, label) <= 1) tally.withinOne++;
  }
  return tally;
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;

function printScores(title: string, outcomes: readonly ImageOutcome[]): void {
  console.log(`\n${title}`);
  const header = ['', 'images', 'found', 'exact', 'exact O≡0', '≤ 1 char', 'text anywhere'];
  const rows = [header];
  for (const region of ['all', ...new Set(outcomes.map((outcome) => outcome.image.region))]) {
    const s = score(region === 'all' ? outcomes : outcomes.filter((outcome) => outcome.image.region === region));
    rows.push([region, String(s.images), percent(s.found, s.images), percent(s.exact, s.images), percent(s.exactOZero, s.images), percent(s.withinOne, s.images), percent(s.anywhere, s.images)]);
  }
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
}

/** A plate as CodeProject.AI's ALPR answers it: with the name of the service's known plate it matched, if any. */
export interface AlprPlate extends FoundPlate {
  readonly knownName?: string;
}

/** The plates of a photo as CodeProject.AI's ALPR answers them, filtered by the server, and the call's milliseconds (sent to the server, answered). */
export async function readThroughAlpr(url: string, bytes: Buffer): Promise<{ plates: AlprPlate[]; ms: number }> {
  const form = new FormData();
  form.append('upload', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg');
  const started = performance.now();
  const answer = await fetch(`${url}/v1/image/alpr`, { method: 'POST', body: form });
  const body = (await answer.json()) as { success: boolean; error?: string; predictions: { plate: string; confidence: number; x_min: number; y_min: number; x_max: number; y_max: number; known_name?: string }[] };
  const ms = performance.now() - started;
  if (!body.success) throw new Error(`/v1/image/alpr answered ${answer.status}: ${body.error}`);
  // The server keeps only plates its filter keeps: their read confidence is past it.
  const plates = body.predictions.map((p) => ({ text: p.plate, confidence: p.confidence, box: { left: p.x_min, top: p.y_min, right: p.x_max, bottom: p.y_max }, readConfidence: 1, knownName: p.known_name }));
  return { plates, ms };
}

/**
 * The served path, as CodeProject.AI's clients (and the hidden checks) call it: a real server on a
 * models folder holding the plate pair, a license-plate service taking keyless calls from this
 * machine, each photo posted to /v1/image/alpr in `upload`, in turn.
 */
export async function servedAlpr(): Promise<{ readonly url: string; readonly apiKey: string; close(): Promise<void> }> {
  const folder = plateModelsFolder(PLATE_MODELS);
  const server = await startLocalServer({ DETECTD_MODELS_DIR: folder });
  const apiKey = await server.createService({ name: 'plates', type: 'license-plate' });
  await server.domain.services.setKeylessAddressRanges((await server.domain.keys.authenticate(apiKey))!, '');
  return {
    url: server.url,
    apiKey,
    async close() {
      await server.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}


/** Both halves of the close-ups and of their far-camera frames, each image as its file and label. */
export async function plateSets(limit: number | undefined) {
  const halves = splitHalves(await readPlateBenchmark(PLATE_DATASET));
  const photoFolder = path.join(PLATE_DATASET, 'images');
  const streets = (await imagesOfCoco(COCO_DATASET)).filter((image) => image.vehicle).map((image) => image.file);
  const sets = [];
  for (const half of ['tune', 'check'] as const) {
    const photos = halves[half].slice(0, limit);
    const far = await farPlateSet(photos, photoFolder, streets, FAR_SEED);
    sets.push({ half, close: photos.map((image) => ({ image, file: path.join(photoFolder, image.file) })), far: far.frames.map((image) => ({ image, file: path.join(far.folder, image.file) })) });
  }
  return sets;
}

export async function evaluatePlates(limit?: number): Promise<void> {
  const served = await servedAlpr();
  try {
    const sets = await plateSets(limit);
    const ms = { close: [] as number[], far: [] as number[], free: [] as number[] };
    const read = async (kind: keyof typeof ms, file: string) => {
      const answer = await readThroughAlpr(served.url, await readFile(file));
      ms[kind].push(answer.ms);
      return answer.plates;
    };
    const outcomes = { close: { tune: [] as ImageOutcome[], check: [] as ImageOutcome[] }, far: { tune: [] as ImageOutcome[], check: [] as ImageOutcome[] } };
    for (const { half, close, far } of sets) {
      // A close-up, then its far frame: both kinds meet the same load, for a fair ratio of their times.
      for (let index = 0; index < close.length; index++) {
        outcomes.close[half].push({ image: close[index].image, plates: await read('close', close[index].file) });
        outcomes.far[half].push({ image: far[index].image, plates: await read('far', far[index].file) });
      }
    }
    const free = (await imagesOfCoco(COCO_DATASET)).filter((image) => !image.vehicle).slice(0, limit ?? VEHICLE_FREE_IMAGES);
    const falsePlates: FoundPlate[][] = [];
    for (const { file } of free) falsePlates.push(await read('free', file));

    console.log(`Licence plates through POST /v1/image/alpr (upload): ${path.basename(PLATE_MODELS.detector)} + ${path.basename(PLATE_MODELS.reader)}`);
    printScores(`Close-ups, tune half (${outcomes.close.tune.length} photos)`, outcomes.close.tune);
    printScores(`Close-ups, check half (${outcomes.close.check.length} photos; measured only)`, outcomes.close.check);
    printScores(`Far-camera frames (${FAR_SEED}), tune half (${outcomes.far.tune.length} frames)`, outcomes.far.tune);
    printScores(`Far-camera frames (${FAR_SEED}), check half (${outcomes.far.check.length} frames; measured only)`, outcomes.far.check);
    const withPlate = falsePlates.filter((plates) => plates.length > 0);
    console.log(`\nVehicle-free photos (${free.length} of ${COCO_DATASET} with no ${[...VEHICLES].join('/')} box): ${withPlate.length} with a plate${withPlate.length > 0 ? ` (${withPlate.flat().map((plate) => plate.text).join(', ')})` : ''}`);
    const closeP50 = percentile(ms.close, 50);
    const farP50 = percentile(ms.far, 50);
    console.log(`\nSpeed (in turn, one call at a time): close-ups p50 ${closeP50.toFixed(1)} ms (p90 ${percentile(ms.close, 90).toFixed(1)}), ${ms.close.length} calls; far frames p50 ${farP50.toFixed(1)} ms (p90 ${percentile(ms.far, 90).toFixed(1)}), ${ms.far.length} calls; far / close ${(farP50 / closeP50).toFixed(2)}`);
  } finally {
    await served.close();
  }
}
