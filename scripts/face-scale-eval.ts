/**
 * `npm run eval -- --face-scale`: where the similarity scale that leaves the server puts pairs of
 * faces on DeepStack's reading (same person > 0.65, different < 0.55), before (the internal
 * similarity) and after the mapping (src/features/faces/gallery/face-similarity.ts `reportedSimilarity`).
 *
 * Faces are found and described as the server does (the embedded YuNet-n, a small photo framed in
 * grey, each face aligned by its landmarks and described by dlib's ResNet): the 5 crops of each person
 * of ../shared/eval/faces, their faces in the group photos (test/support/faces.ts says who is where),
 * and every face at least 64 px tall of the WIDER images (strangers, each another person). The people
 * are split into the project's TUNE half (the mapping was chosen on it) and its CHECK half. For each
 * half: same-person pairs (two faces of one person of the half), different-person pairs (two people of
 * the half, or one of them and a WIDER face).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { faceSimilarity, reportedSimilarity } from '../src/features/faces/gallery/face-similarity.js';
import { loadFaceDescriptorNet } from '../src/models/face-describer.js';
import { loadEmbeddedFaceDetector } from '../src/models/load-models.js';
import type { Detection, Detector } from '../src/models/types.js';
import { ModelScheduler } from '../src/scheduler/model-scheduler.js';
import { decodeImage } from '../src/vision/decode.js';
import { frameSmallImage } from '../src/vision/portrait.js';
import type { RgbImage } from '../src/vision/image.js';
import { DEFAULT_FACE_DATASET, readWiderDataset } from './face-eval.js';
import { GROUP_PHOTOS } from './face-recognition-eval.js';
import { CHECK as CHECK_PEOPLE, TUNE as TUNE_PEOPLE } from './unknown-faces-eval.js';

const FACES_DIR = '../shared/eval/faces';
/** WIDER faces this tall or taller are strangers here: the size of a face in a verification pair. */
const STRANGER_HEIGHT = 64;
const SAME = 0.65;
const DIFFERENT = 0.55;

interface DescribedFace {
  /** The person, or `wider:<image>:<n>` for a stranger. */
  readonly who: string;
  readonly descriptor: Float32Array;
}

async function facesOf(detector: Detector, image: RgbImage): Promise<Detection[]> {
  const scheduler = new ModelScheduler(detector, { maxAdmitted: 1 });
  const signal = new AbortController().signal;
  const turn = await scheduler.acquire('request', signal);
  try {
    return (await turn.detect(image, { minScore: 0.5, maxDetections: 200 }, signal)).detections.sort((a, b) => a.box.left - b.box.left);
  } finally {
    turn.release();
  }
}

/** Every described face of the shared photos: the cast's crops and group faces, and the WIDER strangers. */
export async function describeSharedFaces(): Promise<DescribedFace[]> {
  const detector = await loadEmbeddedFaceDetector({ threads: 2, concurrency: 1, nmsIou: 0.7 }, () => {});
  const describer = await loadFaceDescriptorNet(() => {});
  const faces: DescribedFace[] = [];
  /** The image as the face routes see it: a small one framed in grey. */
  const read = async (file: string) => {
    const bytes = await readFile(file);
    return { image: await decodeImage((await frameSmallImage(bytes, 40e6))?.bytes ?? bytes, { maxPixels: 40e6 }) };
  };
  try {
    for (const person of [...TUNE_PEOPLE, ...CHECK_PEOPLE]) {
      for (let index = 1; index <= 5; index++) {
        const { image } = await read(path.join(FACES_DIR, person, `${person}${index}.png`));
        const [face] = await facesOf(detector, image);
        if (face) faces.push({ who: person, descriptor: await describer.describe(image, face.landmarks!) });
      }
    }
    for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
      const { image } = await read(path.join(FACES_DIR, photo));
      const found = await facesOf(detector, image);
      if (found.length !== people.length) throw new Error(`${photo}: ${found.length} faces found for ${people.length}`);
      for (const [index, face] of found.entries()) if (people[index]) faces.push({ who: people[index]!, descriptor: await describer.describe(image, face.landmarks!) });
    }
    for (const wider of await readWiderDataset(DEFAULT_FACE_DATASET)) {
      const { image } = await read(path.join(DEFAULT_FACE_DATASET, 'images', wider.path));
      for (const [index, face] of (await facesOf(detector, image)).entries()) {
        if (face.box.bottom - face.box.top >= STRANGER_HEIGHT) faces.push({ who: `wider:${wider.path}:${index}`, descriptor: await describer.describe(image, face.landmarks!) });
      }
    }
  } finally {
    await describer.dispose();
    await detector.dispose();
  }
  return faces;
}

export interface PairSimilarities {
  readonly same: number[];
  readonly different: number[];
}

/** The internal similarity of every same-person and different-person pair of `people` (a half), strangers included as different. */
export function pairSimilarities(faces: readonly DescribedFace[], people: readonly string[]): PairSimilarities {
  const cast = faces.filter((face) => people.includes(face.who));
  const strangers = faces.filter((face) => face.who.startsWith('wider:'));
  const same: number[] = [];
  const different: number[] = [];
  cast.forEach((face, index) => {
    for (const other of cast.slice(index + 1)) (other.who === face.who ? same : different).push(faceSimilarity(face.descriptor, other.descriptor));
    for (const stranger of strangers) different.push(faceSimilarity(face.descriptor, stranger.descriptor));
  });
  return { same, different };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};

export interface ScaleFigures {
  readonly same: { readonly pairs: number; readonly right: number; readonly median: number };
  readonly different: { readonly pairs: number; readonly right: number; readonly median: number };
}

/** How many pairs land on the right side of DeepStack's reading on a scale (`scale` of the internal similarity), and the medians. */
export function scaleFigures({ same, different }: PairSimilarities, scale: (similarity: number) => number): ScaleFigures {
  const sameOn = same.map(scale);
  const differentOn = different.map(scale);
  return {
    same: { pairs: same.length, right: sameOn.filter((value) => value > SAME).length, median: median(sameOn) },
    different: { pairs: different.length, right: differentOn.filter((value) => value < DIFFERENT).length, median: median(differentOn) },
  };
}

/** The best threshold on the internal scale (most pairs right, same ≥ it), and the pairs it gets wrong. */
export function bestRawThreshold({ same, different }: PairSimilarities): { threshold: number; wrong: number } {
  const candidates = [...same, ...different].sort((a, b) => a - b);
  let best = { threshold: 0, wrong: Infinity };
  for (const threshold of candidates) {
    const wrong = same.filter((value) => value < threshold).length + different.filter((value) => value >= threshold).length;
    if (wrong < best.wrong) best = { threshold, wrong };
  }
  return best;
}

export async function evaluateFaceScale(): Promise<void> {
  const faces = await describeSharedFaces();
  console.log(`\nThe similarity scale on DeepStack's reading (same > ${SAME}, different < ${DIFFERENT}): ${faces.filter((face) => !face.who.startsWith('wider:')).length} faces of the cast, ${faces.filter((face) => face.who.startsWith('wider:')).length} WIDER strangers ≥ ${STRANGER_HEIGHT} px`);
  const percent = (count: number, of: number) => `${count}/${of} (${((100 * count) / Math.max(1, of)).toFixed(1)} %)`;
  for (const [half, people] of [['TUNE', TUNE_PEOPLE], ['CHECK', CHECK_PEOPLE]] as const) {
    const pairs = pairSimilarities(faces, people);
    const best = bestRawThreshold(pairs);
    const raw = [...pairs.same].sort((a, b) => a - b);
    const rawDifferent = [...pairs.different].sort((a, b) => b - a);
    console.log(`${half} (${people.join(', ')}): best internal threshold ${best.threshold.toFixed(3)} (${best.wrong} pairs wrong); lowest same ${raw.slice(0, 5).map((v) => v.toFixed(3)).join(' ')}; highest different ${rawDifferent.slice(0, 5).map((v) => v.toFixed(3)).join(' ')}`);
    for (const [scale, of] of [['internal', (value: number) => value], ['reported', reportedSimilarity]] as const) {
      const figures = scaleFigures(pairs, of);
      console.log(`  ${scale.padEnd(8)}  same: right ${percent(figures.same.right, figures.same.pairs)}, median ${figures.same.median.toFixed(3)}  different: right ${percent(figures.different.right, figures.different.pairs)}, median ${figures.different.median.toFixed(3)}`);
    }
  }
}
