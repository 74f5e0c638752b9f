/**
 * `npm run eval -- --registration`: the registration quality check (src/features/faces/gallery/face-quality.ts)
 * measured as a photo meets it — the embedded YuNet at the registration's confidence, the chosen
 * face's sharpness, yaw and height, and the describer — on three sets (WIDER first: its faces are
 * the strangers of the weighing of weak photos):
 *
 * - the describer on the shared crops made worse (Gaussian blur, upscaled from small, shrunk, JPEG),
 *   by sharpness band: how often the face is still nearest to its own person's other crops (rank 1)
 *   and named as them (0.80, 0.02 ahead); where that collapses is where a face cannot be described;
 * - WIDER FACE validation faces, each cut out with a face's width of scene around it and chosen by
 *   its box, in two halves by image (TUNE: odd positions in annotations.txt, CONFIRM: even): faces
 *   annotated clear (blur 0) and at least 48 px tall refused, weak; heavy blur and tiny faces refused;
 * - "ordinary photos": the group photos brought down so that each face in turn is 80, 100 or 120 px
 *   tall, Gaussian σ 0–2, JPEG quality 30 or 60: the share accepted;
 * - photos of several faces sent without a box (face-quality.ts photoSubject): the group photos whole
 *   (none has a subject), each of their faces framed as a news photo would frame it (a 2.27 × face square,
 *   as Labeled Faces in the Wild crops; a 3 × 4 portrait; a 5 × 3.5 wide shot), TUNE bbt1–2 and CHECK
 *   bbt3–5, and the WIDER cut-outs above without their box: the subject taken right, wrong, or refused.
 *
 * Each set is scored by the check now and by the check before it (48 px, sharpness 30, yaw ±0.6, all refusals).
 */
import './lib/typescript-workers.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { faceYaw, photoSubject, registrationQuality } from '../src/features/faces/gallery/face-quality.js';
import { faceSimilarity, DEFAULT_FACE_MATCH_THRESHOLD, FACE_MATCH_MARGIN, internalSimilarity } from '../src/features/faces/gallery/face-similarity.js';
import { loadFaceDescriptorNet, SMALLEST_DESCRIBED_FACE } from '../src/models/face-describer.js';
import { loadEmbeddedFaceDetector } from '../src/models/load-models.js';
import type { Detection } from '../src/models/types.js';
import { ModelScheduler } from '../src/scheduler/model-scheduler.js';
import { detectFaces } from '../src/features/faces/task/find-faces.js';
import type { Box } from '../src/vision/image.js';
import { sharpness } from '../src/vision/sharpness.js';
import { PEOPLE } from './face-recognition-eval.js';
import { DEFAULT_FACE_DATASET } from './face-eval.js';
import { parseWiderAnnotations } from './wider-face-ap.js';

const FACES_DIR = '../shared/eval/faces';
/** As the registration takes a face (features/faces/task/photo-faces.ts). */
const REGISTRATION_MIN_CONFIDENCE = 0.55;
const LEAST_CHOSEN_OVERLAP = 0.3;
/** The default naming threshold on the scale faceSimilarity gives (internal: 0.80), as features/faces/gallery/face-gallery.ts compares it. */
const NAMING_THRESHOLD = internalSimilarity(DEFAULT_FACE_MATCH_THRESHOLD);
/** The check before issue 41: every shortfall refused. */
const PREVIOUS_CHECK = { height: 48, sharpness: 30, yaw: 0.6 };

/** A photo's chosen face as the registration measures it. */
interface Measured {
  readonly sharpness: number;
  readonly refused: boolean;
  readonly weak: boolean;
  readonly refusedBefore: boolean;
  readonly descriptor?: Float32Array;
}

const area = (box: Box) => Math.max(0, box.right - box.left) * Math.max(0, box.bottom - box.top);
const overlap = (a: Box, b: Box) => {
  const shared = area({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) });
  return shared / (area(a) + area(b) - shared || 1);
};
const percent = (part: number, whole: number) => `${part}/${whole} (${((100 * part) / Math.max(1, whole)).toFixed(1)} %)`;

async function loadMeasurer() {
  const settings = { threads: 1, concurrency: 1, nmsIou: 0.3 };
  const detector = await loadEmbeddedFaceDetector(settings, () => {});
  const describer = await loadFaceDescriptorNet(() => {});
  const scheduler = new ModelScheduler(detector, { maxAdmitted: 4 });
  const signal = new AbortController().signal;
  const detect = (bytes: Buffer) => detectFaces({ bytes, scheduler, limits: { maxPixels: 40e6, maxDetections: 300, deadlineMs: 60_000 }, signal, minScore: REGISTRATION_MIN_CONFIDENCE }, {});
  /** The boxes of the faces the registration finds in a photo. */
  async function faces(bytes: Buffer): Promise<Box[]> {
    const analysis = await detect(bytes);
    analysis.pixels?.release();
    return analysis.detections.map((detection) => detection.box);
  }
  /** The faces a registration without a box finds in a photo, and the one it takes: 'several' when it refuses the photo. */
  async function subject(bytes: Buffer): Promise<{ readonly found: Box[]; readonly taken?: Box | 'several' }> {
    const analysis = await detect(bytes);
    analysis.pixels?.release();
    const chosen = photoSubject(analysis.detections, analysis, SMALLEST_DESCRIBED_FACE);
    return { found: analysis.detections.map((detection) => detection.box), taken: chosen && (chosen.problem ? 'several' : chosen.face.box) };
  }
  /** The photo's face nearest `near` (else its largest), measured; undefined when the registration would find none. */
  async function measure(bytes: Buffer, near?: Box): Promise<Measured | undefined> {
    const analysis = await detect(bytes);
    try {
      const closeness = (detection: Detection) => (near ? overlap(detection.box, near) : area(detection.box));
      const face = analysis.detections.reduce<Detection | undefined>((best, detection) => (!best || closeness(detection) > closeness(best) ? detection : best), undefined);
      if (!face || (near && overlap(face.box, near) < LEAST_CHOSEN_OVERLAP)) return undefined;
      const pixels = analysis.pixels!;
      const measures = { height: face.box.bottom - face.box.top, sharpness: await sharpness(pixels, face.box), landmarks: face.landmarks! };
      const quality = registrationQuality(measures, SMALLEST_DESCRIBED_FACE);
      const yaw = faceYaw(measures.landmarks);
      const refusedBefore = Math.round(measures.height) < PREVIOUS_CHECK.height || Math.round(measures.sharpness) < PREVIOUS_CHECK.sharpness || !(Math.abs(yaw) <= PREVIOUS_CHECK.yaw);
      const descriptor = measures.height >= SMALLEST_DESCRIBED_FACE ? await describer.describe(pixels, measures.landmarks) : undefined;
      return { sharpness: measures.sharpness, refused: quality.problem !== undefined, weak: quality.warnings.length > 0, refusedBefore, descriptor };
    } finally {
      analysis.pixels?.release();
    }
  }
  return { measure, faces, subject, dispose: async () => Promise.all([detector.dispose(), describer.dispose()]) };
}
type Measurer = Awaited<ReturnType<typeof loadMeasurer>>;
type Measure = Measurer['measure'];

const cropFile = (person: string, index: number) => path.join(FACES_DIR, person, `${person}${index}.png`);

/** The ways a crop is made worse, each as one photo a camera or a newspaper could have sent. */
const WORSE: readonly [string, (crop: Buffer) => Promise<Buffer>][] = [
  ...[0, 1, 2, 3, 4, 5, 6].map((sigma): [string, (crop: Buffer) => Promise<Buffer>] => [`blur σ ${sigma}`, (crop) => (sigma === 0 ? Promise.resolve(crop) : sharp(crop).blur(sigma).png().toBuffer())]),
  ...[50, 32, 24, 16].map((side): [string, (crop: Buffer) => Promise<Buffer>] => [`upscaled from ${side} px`, async (crop) => sharp(await sharp(crop).resize(side, side).png().toBuffer()).resize(150, 150).png().toBuffer()]),
  ...[50, 32].map((side): [string, (crop: Buffer) => Promise<Buffer>] => [`shrunk to ${side} px`, (crop) => sharp(crop).resize(side, side).png().toBuffer()]),
  ...[[90, 30, 2], [80, 30, 2], [100, 40, 1.5]].map(([side, quality, sigma]): [string, (crop: Buffer) => Promise<Buffer>] => [
    `${side} px, σ ${sigma}, JPEG ${quality}`,
    async (crop) => sharp(await sharp(crop).resize(side, side).blur(sigma).png().toBuffer()).jpeg({ quality }).toBuffer(),
  ]),
];
const SHARPNESS_BANDS = [0, 4, 6, 15, 30, Infinity];

/** A gallery entry of the weighing below: a person's descriptor, and whether its photo was weak. */
interface Entry {
  readonly person: string;
  readonly descriptor: Float32Array;
  readonly weak: boolean;
}

/** Who `descriptor` is named as by the gallery's rule (features/faces/gallery/face-gallery.ts: best sample per person, the threshold, the margin), weak samples counted always or only for a person with no good one. */
function named(entries: readonly Entry[], descriptor: Float32Array, weakOnlyWithoutGood: boolean): string | undefined {
  const withGood = new Set(entries.filter((entry) => !entry.weak).map((entry) => entry.person));
  const best = new Map<string, number>();
  for (const entry of entries) {
    if (weakOnlyWithoutGood && entry.weak && withGood.has(entry.person)) continue;
    best.set(entry.person, Math.max(best.get(entry.person) ?? -1, faceSimilarity(descriptor, entry.descriptor)));
  }
  const [first, second] = [...best].sort((a, b) => b[1] - a[1]);
  return first && first[1] >= NAMING_THRESHOLD && !(second && first[1] - second[1] < FACE_MATCH_MARGIN) ? first[0] : undefined;
}

/**
 * The describer on the crops made worse: per sharpness band, rank 1 and named among the 8 people's
 * clean crops. Then the weighing of weak photos: each person registered from their clean first crop
 * and their second made worse (weak), their other 3 crops recognised, and `strangers` (faces of none of
 * them): named right, and strangers named, with the weak photo counted always or only without a good one.
 */
async function describerOnWorseCrops(measure: Measure, strangers: readonly Float32Array[]): Promise<void> {
  const clean = new Map<string, Float32Array>();
  for (const person of PEOPLE) for (let index = 1; index <= 5; index++) clean.set(`${person}${index}`, (await measure(await readFile(cropFile(person, index))))!.descriptor!);
  const bands = SHARPNESS_BANDS.slice(1).map(() => ({ faces: 0, first: 0, named: 0, refused: 0, weak: 0 }));
  const weighings: string[] = [];
  const score = (entries: readonly Entry[], weakOnlyWithoutGood: boolean) => {
    const right = PEOPLE.flatMap((person) => [3, 4, 5].map((index) => named(entries, clean.get(`${person}${index}`)!, weakOnlyWithoutGood) === person)).filter(Boolean).length;
    return `${right}/24 right, ${strangers.filter((stranger) => named(entries, stranger, weakOnlyWithoutGood) !== undefined).length} strangers named`;
  };
  const goodOnly = PEOPLE.map((person) => ({ person, descriptor: clean.get(`${person}1`)!, weak: false }));
  for (const [name, worsen] of WORSE) {
    const entries: Entry[] = [...goodOnly];
    for (const person of PEOPLE) {
      for (let index = 1; index <= 5; index++) {
        const face = await measure(await worsen(await readFile(cropFile(person, index))));
        if (!face?.descriptor) continue;
        if (index === 2) entries.push({ person, descriptor: face.descriptor, weak: true });
        const own = Math.max(...[...clean].filter(([key]) => key.startsWith(person) && key !== `${person}${index}`).map(([, other]) => faceSimilarity(face.descriptor!, other)));
        const stranger = Math.max(...[...clean].filter(([key]) => !key.startsWith(person)).map(([, other]) => faceSimilarity(face.descriptor!, other)));
        const band = bands[SHARPNESS_BANDS.findIndex((bound, at) => face.sharpness >= bound && face.sharpness < SHARPNESS_BANDS[at + 1])];
        band.faces++;
        band.first += own > stranger ? 1 : 0;
        band.named += own >= NAMING_THRESHOLD && own - stranger >= FACE_MATCH_MARGIN ? 1 : 0;
        band.refused += face.refused ? 1 : 0;
        band.weak += face.weak ? 1 : 0;
      }
    }
    weighings.push(`${name.padEnd(26)} counted always: ${score(entries, false).padEnd(34)} only without a good one: ${score(entries, true)}`);
  }
  console.log(`The describer on the 40 crops made worse (${WORSE.map(([name]) => name).join('; ')}), by sharpness:`);
  console.log('sharpness  faces  rank 1   named   refused  weak');
  bands.forEach((band, at) => console.log(`${`${SHARPNESS_BANDS[at]}–${SHARPNESS_BANDS[at + 1]}`.padEnd(10)} ${String(band.faces).padStart(5)}  ${(band.first / band.faces).toFixed(2).padStart(6)}  ${(band.named / band.faces).toFixed(2).padStart(6)}  ${String(band.refused).padStart(7)}  ${String(band.weak).padStart(4)}`));
  console.log(`\nWeak photos weighed: each person's clean first crop and their second made worse; their crops 3–5 recognised, ${strangers.length} WIDER faces as strangers (the clean first crop alone: ${score(goodOnly, true)}):`);
  for (const line of weighings) console.log(line);
}

/** WIDER's attributes of a face (annotations.txt: x1 y1 w h blur expression illumination invalid occlusion pose). */
interface WiderAttributes {
  readonly blur: number;
  readonly occlusion: number;
  readonly pose: number;
}

function widerAttributes(text: string): WiderAttributes[][] {
  const lines = text.split('\n').map((line) => line.trim());
  const images: WiderAttributes[][] = [];
  for (let at = 0; at < lines.length && lines[at] !== ''; ) {
    const count = Number(lines[at + 1]);
    at += 2;
    const faces = lines.slice(at, at + Math.max(count, 1)).map((line) => line.split(/\s+/).map(Number));
    at += Math.max(count, 1);
    images.push(count === 0 ? [] : faces.map(([, , , , blur, , , , occlusion, pose]) => ({ blur, occlusion, pose })));
  }
  return images;
}

/** A WIDER half's faces by kind, as registration photos. */
async function widerHalves(measure: Measure, cutOuts: { half: 'TUNE' | 'CONFIRM'; photo: Buffer; box: Box }[]): Promise<Float32Array[]> {
  const text = await readFile(path.join(DEFAULT_FACE_DATASET, 'annotations.txt'), 'utf8');
  const images = parseWiderAnnotations(text);
  const attributes = widerAttributes(text);
  type Tally = { faces: number; noFace: number; refused: number; weak: number; refusedBefore: number };
  const tally = () => ({ faces: 0, noFace: 0, refused: 0, weak: 0, refusedBefore: 0 });
  const strangers: Float32Array[] = [];
  const halves = { TUNE: { clear: tally(), clearPlain: tally(), heavy: tally(), tiny: tally(), small: tally() }, CONFIRM: { clear: tally(), clearPlain: tally(), heavy: tally(), tiny: tally(), small: tally() } };
  for (const [index, image] of images.entries()) {
    const half = halves[index % 2 === 1 ? 'TUNE' : 'CONFIRM'];
    const bytes = await readFile(path.join(DEFAULT_FACE_DATASET, 'images', image.path));
    const { width = 0, height = 0 } = await sharp(bytes).metadata();
    for (const [at, face] of image.faces.entries()) {
      if (face.invalid || face.height < 10) continue;
      const { blur, occlusion, pose } = attributes[index][at];
      const kinds: Tally[] = [];
      if (face.height >= 48 && blur === 0) kinds.push(half.clear, ...(occlusion === 0 && pose === 0 ? [half.clearPlain] : []));
      if (face.height >= 48 && blur === 2) kinds.push(half.heavy);
      if (face.height < 24) kinds.push(half.tiny);
      else if (face.height < 48) kinds.push(half.small);
      if (kinds.length === 0) continue;
      const margin = Math.max(face.width, face.height);
      const left = Math.max(0, Math.floor(face.left - margin));
      const top = Math.max(0, Math.floor(face.top - margin));
      const cut = { left, top, width: Math.min(width, Math.ceil(face.left + face.width + margin)) - left, height: Math.min(height, Math.ceil(face.top + face.height + margin)) - top };
      const photo = await sharp(bytes).extract(cut).png().toBuffer();
      const box = { left: face.left - left, top: face.top - top, right: face.left - left + face.width, bottom: face.top - top + face.height };
      if (kinds.includes(half.clear)) cutOuts.push({ half: index % 2 === 1 ? 'TUNE' : 'CONFIRM', photo, box });
      const measured = await measure(photo, box);
      if (measured?.descriptor && !measured.refused) strangers.push(measured.descriptor);
      for (const kind of kinds) {
        kind.faces++;
        if (!measured) kind.noFace++;
        else {
          kind.refused += measured.refused ? 1 : 0;
          kind.weak += measured.weak && !measured.refused ? 1 : 0;
          kind.refusedBefore += measured.refusedBefore ? 1 : 0;
        }
      }
    }
  }
  console.log('\nWIDER FACE validation (../shared/eval/faces/wider-val), each face cut out with its scene and chosen by its box; TUNE: odd images, CONFIRM: even:');
  console.log('half     faces                                       annotated  no face found  refused now      weak now         refused before');
  for (const [name, half] of Object.entries(halves)) {
    for (const [kind, label] of [['clear', 'clear (blur 0), ≥ 48 px'], ['clearPlain', '  of them not occluded, typical pose'], ['heavy', 'heavy blur (blur 2), ≥ 48 px'], ['small', '24–48 px, any blur'], ['tiny', 'under 24 px, any blur']] as const) {
      const counts = half[kind];
      const found = counts.faces - counts.noFace;
      console.log(`${name.padEnd(8)} ${label.padEnd(43)} ${String(counts.faces).padStart(9)}  ${String(counts.noFace).padStart(13)}  ${percent(counts.refused, found).padEnd(15)}  ${percent(counts.weak, found).padEnd(15)}  ${percent(counts.refusedBefore, found)}`);
    }
  }
  return strangers;
}

/** Each group-photo face as the subject of an ordinary photo: the photo brought down so the face is 80–120 px, softened, compressed. */
async function ordinaryPhotos({ measure, faces }: Measurer): Promise<void> {
  let photos = 0;
  let refused = 0;
  let weak = 0;
  let refusedBefore = 0;
  let noFace = 0;
  for (let group = 1; group <= 5; group++) {
    const original = await readFile(path.join(FACES_DIR, `bbt${group}.jpg`));
    const { width = 0, height = 0 } = await sharp(original).metadata();
    for (const box of await faces(original)) {
      for (const faceHeight of [80, 100, 120]) {
        const scale = faceHeight / (box.bottom - box.top);
        for (const sigma of [0, 1, 1.5, 2]) {
          for (const quality of [30, 60]) {
            const smaller = sharp(original).resize(Math.round(width * scale), Math.round(height * scale));
            const photo = await sharp(await (sigma === 0 ? smaller : smaller.blur(sigma)).png().toBuffer()).jpeg({ quality }).toBuffer();
            const measured = await measure(photo, { left: box.left * scale, top: box.top * scale, right: box.right * scale, bottom: box.bottom * scale });
            photos++;
            if (!measured) noFace++;
            else {
              refused += measured.refused ? 1 : 0;
              weak += measured.weak && !measured.refused ? 1 : 0;
              refusedBefore += measured.refusedBefore ? 1 : 0;
            }
          }
        }
      }
    }
  }
  console.log(`\nOrdinary photos: each face of bbt1–5 the subject, at 80, 100 and 120 px, Gaussian σ 0, 1, 1.5, 2, JPEG 30 and 60: ${photos} photos, no face found ${noFace}`);
  console.log(`accepted now ${percent(photos - noFace - refused, photos)} (weak ${weak}), refused now ${refused}; accepted before ${percent(photos - noFace - refusedBefore, photos)}`);

}

/** A photo framed around one face of a larger one: the share of the face's height each way, and how far up the frame the face's centre sits. */
const FRAMINGS = [
  { name: 'news square (2.27 × 2.27 faces)', across: 2.27, down: 2.27, above: 0.5 },
  { name: 'portrait (3 × 4)', across: 3, down: 4, above: 0.3 },
  { name: 'wide shot (5 × 3.5)', across: 5, down: 3.5, above: 0.4 },
] as const;

/** Photos of several faces sent with no box: whether the registration takes the subject (the face the photo was framed around), another face, or refuses it. */
async function severalFaces({ faces, subject }: Measurer, cutOuts: readonly { half: 'TUNE' | 'CONFIRM'; photo: Buffer; box: Box }[]): Promise<void> {
  type Tally = { photos: number; missed: number; several: number; right: number; wrong: number };
  const tallies = new Map<string, Tally>();
  const count = async (label: string, photo: Buffer, framedAround: Box | undefined) => {
    const tally = tallies.get(label) ?? { photos: 0, missed: 0, several: 0, right: 0, wrong: 0 };
    tallies.set(label, tally);
    const { found, taken } = await subject(photo);
    if (!taken) return;
    tally.photos++;
    const isSubject = (box: Box) => framedAround !== undefined && overlap(box, framedAround) >= LEAST_CHOSEN_OVERLAP;
    // A photo whose own subject the detector did not find is the detector's miss, counted apart.
    if (framedAround && !found.some(isSubject)) tally.missed++;
    else if (taken === 'several') tally.several++;
    else if (isSubject(taken)) tally.right++;
    else tally.wrong++;
  };
  for (let group = 1; group <= 5; group++) {
    const original = await readFile(path.join(FACES_DIR, `bbt${group}.jpg`));
    await count('group photos bbt1–5, whole', original, undefined);
    const { width = 0, height = 0 } = await sharp(original).metadata();
    for (const box of await faces(original)) {
      const faceHeight = box.bottom - box.top;
      const [middleX, middleY] = [(box.left + box.right) / 2, (box.top + box.bottom) / 2];
      for (const framing of FRAMINGS) {
        const left = Math.round(Math.max(0, middleX - (faceHeight * framing.across) / 2));
        const top = Math.round(Math.max(0, middleY - faceHeight * framing.down * framing.above));
        const right = Math.round(Math.min(width, middleX + (faceHeight * framing.across) / 2));
        const bottom = Math.round(Math.min(height, middleY + faceHeight * framing.down * (1 - framing.above)));
        // The face brought to 110 px, as in a news photo.
        const scale = 110 / faceHeight;
        const photo = await sharp(original).extract({ left, top, width: right - left, height: bottom - top }).resize(Math.round((right - left) * scale)).jpeg({ quality: 80 }).toBuffer();
        const around = { left: (box.left - left) * scale, top: (box.top - top) * scale, right: (box.right - left) * scale, bottom: (box.bottom - top) * scale };
        await count(`${group <= 2 ? 'TUNE bbt1–2' : 'CHECK bbt3–5'}, ${framing.name}`, photo, around);
      }
    }
  }
  for (const { half, photo, box } of cutOuts) await count(`${half} WIDER clear ≥ 48 px, cut out with its scene`, photo, box);
  for (const person of PEOPLE) for (let index = 1; index <= 5; index++) await count('the 40 crops', await readFile(cropFile(person, index)), { left: 0, top: 0, right: 150, bottom: 150 });
  console.log('\nSeveral faces, no box (photos where the registration finds a face): the face the photo was framed around taken, another taken, refused as several; and photos whose subject the detector did not find');
  for (const [label, { photos, missed, several, right, wrong }] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
    const judged = photos - missed;
    console.log(`${label.padEnd(52)} ${String(photos).padStart(4)} photos  subject ${percent(right, judged).padEnd(16)} another ${String(wrong).padStart(2)}  refused ${percent(several, judged).padEnd(15)}  subject not found ${missed}`);
  }
}

export async function evaluateRegistrationQuality(): Promise<void> {
  const measurer = await loadMeasurer();
  try {
    const cutOuts: { half: 'TUNE' | 'CONFIRM'; photo: Buffer; box: Box }[] = [];
    const strangers = await widerHalves(measurer.measure, cutOuts);
    await severalFaces(measurer, cutOuts);
    await describerOnWorseCrops(measurer.measure, strangers);
    await ordinaryPhotos(measurer);
  } finally {
    await measurer.dispose();
  }
}
