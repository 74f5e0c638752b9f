/**
 * `npm run eval -- --phantom-faces`: faces found where there is none, through the served path as
 * DeepStack's clients call it — each photo posted to `POST /v1/vision/face` at `min_confidence`
 * 0.4 (DeepStack's default) on a real server with the embedded face model (or --model); the faces
 * at 0.5 (the Nvision API's default) are those of them at 0.5 or more. Photos with no person:
 * those of ../shared/eval/coco-val122 (`tune`: where the second look was chosen) and of coco128
 * (`check`) whose official boxes hold no person, and ../shared/eval/photos but person.jpg. Faces
 * that must stay: the group photos and face crops of ../shared/eval/faces, whose faces are all
 * real (test/support/faces.ts says which).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startLocalServer } from './lib/local-server.js';

const PERSON = 1;
const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];

interface Photo {
  readonly set: string;
  readonly file: string;
}

interface FoundFace {
  readonly confidence: number;
  readonly x_min: number;
  readonly y_min: number;
  readonly x_max: number;
  readonly y_max: number;
}

/** The photos of a COCO folder whose boxes hold no person. */
async function personFree(set: string, folder: string, imagesFolder: string): Promise<Photo[]> {
  const { images, annotations } = JSON.parse(await readFile(path.join(folder, 'annotations.json'), 'utf8')) as {
    images: { id: number; file_name: string }[];
    annotations: { image_id: number; category_id: number }[];
  };
  const withPeople = new Set(annotations.filter((box) => box.category_id === PERSON).map((box) => box.image_id));
  return images.filter((image) => !withPeople.has(image.id)).map((image) => ({ set, file: path.join(imagesFolder, image.file_name) }));
}

async function photos(): Promise<Photo[]> {
  const faces = '../shared/eval/faces';
  return [
    ...(await personFree('tune: coco-val122 without people', '../shared/eval/coco-val122', '../shared/eval/coco-val122/images')),
    ...(await personFree('check: coco128 without people', '../shared/eval/coco128', '../shared/eval/coco128/images/train2017')),
    ...['dog', 'eagle', 'giraffe', 'horses', 'kite', 'scream'].map((name) => ({ set: 'check: eval/photos without people', file: `../shared/eval/photos/${name}.jpg` })),
    ...[1, 2, 3, 4, 5].map((index) => ({ set: 'real faces: group photos bbt1–5 (23 faces)', file: `${faces}/bbt${index}.jpg` })),
    ...PEOPLE.flatMap((person) => [1, 2, 3, 4, 5].map((index) => ({ set: 'real faces: face crops (40 faces)', file: `${faces}/${person}/${person}${index}.png` }))),
  ];
}

export async function evaluatePhantomFaces(model: string | undefined): Promise<void> {
  const server = await startLocalServer({ DETECTD_LOG_LEVEL: 'warn', ...(model ? { DETECTD_MODEL: path.resolve(model) } : {}) });
  try {
    const apiKey = await server.createService({ name: 'faces', type: 'face-detection' });
    const found = new Map<string, { photos: number; faces: { file: string; face: FoundFace }[] }>();
    for (const photo of await photos()) {
      const form = new FormData();
      form.set('image', new Blob([await readFile(photo.file)]), path.basename(photo.file));
      form.set('min_confidence', '0.4');
      form.set('api_key', apiKey);
      const response = await fetch(`${server.url}/v1/vision/face`, { method: 'POST', body: form });
      if (response.status !== 200) throw new Error(`${photo.file}: HTTP ${response.status} ${await response.text()}`);
      const { predictions } = (await response.json()) as { predictions: FoundFace[] };
      const set = found.get(photo.set) ?? { photos: 0, faces: [] };
      set.photos++;
      set.faces.push(...predictions.map((face) => ({ file: path.basename(photo.file), face })));
      found.set(photo.set, set);
    }
    for (const [set, { photos: count, faces }] of found) {
      const atHalf = faces.filter(({ face }) => face.confidence >= 0.5);
      console.log(`${set}: ${count} photos, faces at 0.4: ${faces.length} (in ${new Set(faces.map(({ file }) => file)).size} photos), at 0.5: ${atHalf.length}`);
      if (set.startsWith('real')) continue;
      for (const { file, face } of faces) console.log(`  ${file} ${face.confidence.toFixed(2)} [${face.x_min}, ${face.y_min}, ${face.x_max}, ${face.y_max}]`);
    }
  } finally {
    await server.close();
  }
}
