/**
 * `npm run eval -- --faces`, recognition part: who detectd names, measured as a user meets it —
 * through the real server's DeepStack routes (`/v1/vision/face/register`, `/face/recognize`,
 * min_confidence 0.5 as DeepStack clients send), one photo registered per person.
 *
 * - Closed set: the 8 people of ../shared/eval/faces registered from their first crop; their other
 *   32 crops and their 22 faces in the group photos (test/support/faces.ts says who is where)
 *   recognized: right, wrong (named as another registered person) or unknown.
 * - Open set: 4 of them registered; strangers recognized — the other 4 people's crops and group
 *   faces, the man at the edge of bbt2, every face in the WIDER FACE images and in
 *   @vladmandic/face-api's demo photos (people who are none of the cast): how many are named.
 */
import './lib/typescript-workers.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startLocalServer } from './lib/local-server.js';

const FACES_DIR = '../shared/eval/faces';
const DEMO_DIR = 'node_modules/@vladmandic/face-api/demo';
export const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'] as const;
/** Registered in the open-set run: two women, two men. */
const OPEN_SET_GALLERY = ['amy', 'howard', 'penny', 'sheldon'];
/** Who is where in the group photos, left to right (as test/support/faces.ts, where each is described). */
export const GROUP_PHOTOS: Readonly<Record<string, readonly (string | null)[]>> = {
  'bbt1.jpg': ['raj', 'leonard', 'howard', 'sheldon'],
  'bbt2.jpg': [null, 'leonard', 'sheldon'],
  'bbt3.jpg': ['sheldon', 'howard', 'penny', 'raj', 'leonard'],
  'bbt4.jpg': ['leonard', 'amy', 'raj', 'penny', 'sheldon', 'bernadette'],
  'bbt5.jpg': ['raj', 'penny', 'sheldon', 'leonard', 'howard'],
};
const MIN_CONFIDENCE = '0.5';

interface Prediction {
  readonly userid: string;
  readonly confidence: number;
  readonly x_min: number;
}

export interface ClosedSet {
  right: number;
  wrong: number;
  unknown: number;
  /** Group photos where the faces found were not the faces a person sees (their names are not scored). */
  readonly miscounted: string[];
}

export interface OpenSet {
  named: number;
  strangers: number;
  /** Where strangers were named, and as whom. */
  readonly namedWhere: string[];
}

export interface RecognitionScore {
  readonly model: string;
  readonly closed: ClosedSet;
  readonly open: OpenSet;
}

const cropFile = (person: string, index: number) => path.join(FACES_DIR, person, `${person}${index}.png`);

async function post(url: string, key: string, route: string, files: Record<string, string>, fields: Record<string, string> = {}): Promise<{ predictions?: Prediction[]; success: boolean; error?: string }> {
  const form = new FormData();
  for (const [field, file] of Object.entries(files)) form.append(field, new Blob([new Uint8Array(await readFile(file))]), path.basename(file));
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  const response = await fetch(`${url}/v1/vision/${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
  return (await response.json()) as { predictions?: Prediction[]; success: boolean; error?: string };
}

async function recognize(url: string, key: string, file: string): Promise<Prediction[]> {
  const answer = await post(url, key, 'face/recognize', { image: file }, { min_confidence: MIN_CONFIDENCE });
  if (!answer.success) throw new Error(`${file}: ${answer.error}`);
  return [...(answer.predictions ?? [])].sort((a, b) => a.x_min - b.x_min);
}

async function register(url: string, key: string, people: readonly string[]): Promise<void> {
  for (const person of people) {
    const answer = await post(url, key, 'face/register', { image: cropFile(person, 1) }, { userid: person });
    if (!answer.success) throw new Error(`registering ${person}: ${answer.error}`);
  }
}

/** The group photos' faces, each with who it is, where the faces found are the faces a person sees; the others listed as miscounted. */
async function groupFaces(url: string, key: string): Promise<{ faces: { who: string | null; named: string; where: string }[]; miscounted: string[] }> {
  const faces: { who: string | null; named: string; where: string }[] = [];
  const miscounted: string[] = [];
  for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
    const predictions = await recognize(url, key, path.join(FACES_DIR, photo));
    if (predictions.length !== people.length) {
      miscounted.push(`${photo}: ${predictions.length} faces for ${people.length}`);
      continue;
    }
    predictions.forEach((prediction, index) => faces.push({ who: people[index], named: prediction.userid, where: photo }));
  }
  return { faces, miscounted };
}

export async function strangerPhotos(): Promise<string[]> {
  const wider = (await readFile(path.join(FACES_DIR, 'wider-val', 'annotations.txt'), 'utf8'))
    .split('\n')
    .filter((line) => line.trim().endsWith('.jpg'))
    .map((line) => path.join(FACES_DIR, 'wider-val', 'images', line.trim()));
  const demo = (await readdir(DEMO_DIR)).filter((file) => /^sample\d+\.jpg$/.test(file)).map((file) => path.join(DEMO_DIR, file));
  return [...wider, ...demo];
}

/** Recognition through a real server serving `modelPath` (a face model file; undefined: the embedded one). */
export async function scoreRecognition(modelPath: string | undefined): Promise<RecognitionScore> {
  const server = await startLocalServer({ DETECTD_LOG_LEVEL: 'warn', ...(modelPath ? { DETECTD_MODEL: path.resolve(modelPath) } : {}) });
  try {
    const faceModel = modelPath === undefined ? undefined : path.basename(modelPath, '.onnx');
    const closedKey = await server.createService({ type: 'face-detection', model: faceModel ?? null, name: 'closed set' });
    await register(server.url, closedKey, PEOPLE);
    const closed: ClosedSet = { right: 0, wrong: 0, unknown: 0, miscounted: [] };
    const tally = (who: string, named: string) => {
      if (named === 'unknown') closed.unknown++;
      else if (named === who) closed.right++;
      else closed.wrong++;
    };
    for (const person of PEOPLE) {
      for (let index = 2; index <= 5; index++) {
        const [face] = await recognize(server.url, closedKey, cropFile(person, index));
        tally(person, face?.userid ?? 'unknown');
      }
    }
    const group = await groupFaces(server.url, closedKey);
    closed.miscounted.push(...group.miscounted);
    for (const face of group.faces) if (face.who) tally(face.who, face.named);

    const openKey = await server.createService({ type: 'face-detection', model: faceModel ?? null, name: 'open set' });
    await register(server.url, openKey, OPEN_SET_GALLERY);
    const open: OpenSet = { named: 0, strangers: 0, namedWhere: [] };
    const stranger = (named: string, where: string) => {
      open.strangers++;
      if (named === 'unknown') return;
      open.named++;
      open.namedWhere.push(`${where} as ${named}`);
    };
    for (const person of PEOPLE.filter((name) => !OPEN_SET_GALLERY.includes(name))) {
      for (let index = 1; index <= 5; index++) for (const face of await recognize(server.url, openKey, cropFile(person, index))) stranger(face.userid, `${person}${index}`);
    }
    for (const face of (await groupFaces(server.url, openKey)).faces) if (!face.who || !OPEN_SET_GALLERY.includes(face.who)) stranger(face.named, `${face.where} (${face.who ?? 'stranger'})`);
    for (const photo of await strangerPhotos()) for (const face of await recognize(server.url, openKey, photo)) stranger(face.userid, path.basename(photo));
    return { model: faceModel ?? 'embedded', closed, open };
  } finally {
    await server.close();
  }
}

export function printRecognitionTable(scores: readonly RecognitionScore[]): void {
  console.log(`\nFace recognition through /v1/vision/face/* (min_confidence ${MIN_CONFIDENCE}), one photo registered per person`);
  const header = ['model', 'closed: right', 'wrong', 'unknown', 'open: strangers named'];
  const rows = scores.map(({ model, closed, open }) => {
    const total = closed.right + closed.wrong + closed.unknown;
    const share = (count: number, of: number) => `${count}/${of} (${((100 * count) / Math.max(1, of)).toFixed(1)} %)`;
    return [model, share(closed.right, total), share(closed.wrong, total), share(closed.unknown, total), share(open.named, open.strangers)];
  });
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column].length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
  for (const score of scores) {
    if (score.closed.miscounted.length > 0) console.log(`${score.model}: group photos not scored (faces found ≠ faces shown): ${score.closed.miscounted.join('; ')}`);
    if (score.open.namedWhere.length > 0) console.log(`${score.model}: strangers named: ${score.open.namedWhere.join('; ')}`);
  }
}
