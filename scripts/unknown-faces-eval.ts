/**
 * `npm run eval -- --unknown-faces`: unknown people measured as the hidden checks of docs/faces.md
 * ("Unknown people") do it, through a real local server's REST routes. Remembering on and nobody
 * registered, each half's people are sent through `POST /api/v1/face-detection`, each photo with a
 * `frame_id`: their 5 crops, each crop again as a far face (36–64 px tall, pasted into a 1080p
 * frame: far-frames.ts), and the group photos (who is where: face-recognition-eval.ts). Then:
 * - grouping: pairwise precision of the groups (pairs of kept faces in one group that are one
 *   person), and the median over the half's people of their largest group's share of their faces;
 * - naming: each person's largest group named through REST, then every photo of them sent again:
 *   right, wrong person, unknown; and strangers (WIDER FACE, face-api's demo photos): named or not.
 * The people are split into a TUNE half (the grouping rule, unknown-grouping.ts, was chosen on it)
 * and a CHECK half, reported apart. `--replay` also prints, for the TUNE half, the grouping figures
 * of other rules replayed over the kept descriptors in arrival order.
 */
import './lib/typescript-workers.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { KeyCipher } from '../src/accounts/key-cipher.js';
import { loadServerSecret } from '../src/accounts/server-secret.js';
import { fromText } from '../src/faces/face-gallery.js';
import { type GroupFaces, groupFor, type GroupingRule, UNKNOWN_GROUPING } from '../src/faces/unknown-grouping.js';
import { NAMED_FACES, UNKNOWN_DESCRIPTOR_PURPOSE } from '../src/faces/unknown-people.js';
import type { Box } from '../src/vision/image.js';
import { fraction, pastedInFrame } from './lib/far-frames.js';
import { type LocalServer, startLocalServer } from './lib/local-server.js';
import type { CocoDataset } from './coco-map.js';
import { GROUP_PHOTOS, PEOPLE, strangerPhotos } from './face-recognition-eval.js';

const FACES_DIR = '../shared/eval/faces';
const COCO_DATASET = '../shared/eval/coco-val122';
const FACE_TASK = 'face-detection';
const TUNE = ['amy', 'howard', 'leonard', 'raj'];
const CHECK = PEOPLE.filter((person) => !TUNE.includes(person));
const FAR_HEIGHTS = { min: 36, max: 64 };
const FAR_SEED = 'unknown-faces-1';

interface Face {
  readonly name: string;
  readonly similarity?: number;
  readonly bounding_box: { left: number; right: number; top: number; bottom: number };
}

/** One photo sent: its bytes, its frame_id, and who each face in it is, left to right (null: nobody of the cast); a far frame's one face where it was pasted. */
interface Sent {
  readonly frameId: string;
  readonly bytes: Buffer;
  readonly who: readonly (string | null)[];
  readonly at?: Box;
}

const area = (box: Box) => Math.max(0, box.right - box.left) * Math.max(0, box.bottom - box.top);
const overlap = (a: Box, b: Box) => area({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) });

/**
 * Who each face found in a photo is (index-aligned with `faces`, left to right; null: nobody of the
 * cast), or undefined when that cannot be told: a group photo whose faces found are not the faces
 * shown. A one-person photo's person is its largest face (a crop) or the face over where it was
 * pasted (a far frame, whose background may show other faces).
 */
function whoIsWhere(photo: Sent, faces: readonly Face[]): readonly (string | null)[] | undefined {
  if (photo.who.length > 1 || faces.length === 0) return faces.length === photo.who.length ? photo.who : undefined;
  const score = (face: Face) => (photo.at ? overlap(face.bounding_box, photo.at) : area(face.bounding_box));
  const best = faces.reduce((chosen, face) => (score(face) > score(chosen) ? face : chosen));
  if (score(best) === 0) return faces.map(() => null);
  return faces.map((face) => (face === best ? photo.who[0] : null));
}

interface HalfScore {
  readonly half: string;
  readonly people: readonly string[];
  readonly keptFaces: number;
  readonly groups: number;
  readonly pairwisePrecision: number;
  readonly medianLargestShare: number;
  readonly largestShares: Record<string, string>;
  /** The median over people of their largest group's faces over the photos of them sent (a face not found, too small, or not told apart by height counts as missed). */
  readonly medianShareOfSent: number;
  /** The half's people's faces not found (or not told apart) in the photos sent. */
  readonly notFound: readonly string[];
  readonly naming: { right: number; wrong: number; unknown: number; wrongWhere: string[]; unknownWhere: string[] };
  readonly strangers: { named: number; of: number };
}

async function call(server: LocalServer, key: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}/api/v1/${FACE_TASK}${route}`, {
    method,
    headers: { Authorization: `ApiKey ${key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

const detect = async (server: LocalServer, key: string, sent: Sent): Promise<Face[]> =>
  ((await call(server, key, 'POST', '', { raw_data: sent.bytes.toString('base64'), frame_id: sent.frameId })).detected_faces as Face[]).sort((a, b) => a.bounding_box.left - b.bounding_box.left);

/** The COCO photos with no person among their official boxes: a far face's background shows no other face (which would be a stranger of the measurement's making). */
async function peopleFreePhotos(): Promise<string[]> {
  const { images, annotations, categories } = JSON.parse(await readFile(path.join(COCO_DATASET, 'annotations.json'), 'utf8')) as CocoDataset;
  const person = categories.find((category) => category.name === 'person')?.id;
  const withPeople = new Set(annotations.flatMap((box) => (box.category_id === person ? [box.image_id] : [])));
  return images.filter((image) => !withPeople.has(image.id)).map((image) => path.join(COCO_DATASET, 'images', image.file_name));
}

/** The half's photos: crops, far crops, group photos. A far crop is built from the crop's face as found by `server` (any face service of it). */
async function photosOf(people: readonly string[], server: LocalServer, plainKey: string): Promise<Sent[]> {
  const backgrounds = await peopleFreePhotos();
  const sent: Sent[] = [];
  for (const person of people) {
    for (let index = 1; index <= 5; index++) {
      const bytes = await readFile(path.join(FACES_DIR, person, `${person}${index}.png`));
      sent.push({ frameId: `crop:${person}${index}`, bytes, who: [person] });
      const faces = await detect(server, plainKey, { frameId: 'measure', bytes, who: [] });
      if (faces.length === 0) continue;
      const face = faces.reduce((largest, each) => (area(each.bounding_box) > area(largest.bounding_box) ? each : largest));
      const key = `${FAR_SEED}:${person}${index}`;
      const height = FAR_HEIGHTS.min + Math.floor(fraction(`${key}:height`) * (FAR_HEIGHTS.max - FAR_HEIGHTS.min + 1));
      const { jpeg, box } = await pastedInFrame(bytes, face.bounding_box, height / (face.bounding_box.bottom - face.bounding_box.top), backgrounds, key);
      sent.push({ frameId: `far:${person}${index}`, bytes: jpeg, who: [person], at: box });
    }
  }
  for (const [photo, who] of Object.entries(GROUP_PHOTOS)) sent.push({ frameId: `group:${photo}`, bytes: await readFile(path.join(FACES_DIR, photo)), who });
  return sent;
}

/** Who each kept face is: its frame's faces (as answered, with who each is) matched by height (kept faces carry their height); undefined where two faces of a frame are within 2 px of each other. */
function identify(kept: { frame_id: string | null; face_height: number }, answers: ReadonlyMap<string, { who?: readonly (string | null)[]; faces: readonly Face[] }>): string | null | undefined {
  const frame = kept.frame_id === null ? undefined : answers.get(kept.frame_id);
  if (!frame?.who) return undefined;
  const heights = frame.faces.map((face) => face.bounding_box.bottom - face.bounding_box.top);
  const order = heights.map((height, index) => ({ index, off: Math.abs(height - kept.face_height) })).sort((a, b) => a.off - b.off);
  if (order[0].off > 2 || (order[1] && order[1].off - order[0].off < 2)) return undefined;
  const who = frame.who[order[0].index];
  return who ?? `stranger@${kept.frame_id}:${order[0].index}`;
}

/** Pairwise precision and each person's largest share, of groups given as lists of identities. */
function groupingFigures(groups: readonly (readonly string[])[], people: readonly string[], facesOf: ReadonlyMap<string, number>) {
  let pairs = 0;
  let samePairs = 0;
  for (const members of groups) {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        pairs++;
        if (members[i] === members[j]) samePairs++;
      }
    }
  }
  const shares = people.map((person) => Math.max(0, ...groups.map((members) => members.filter((who) => who === person).length)) / Math.max(1, facesOf.get(person) ?? 0));
  const sorted = [...shares].sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return { pairwisePrecision: pairs === 0 ? 1 : samePairs / pairs, medianLargestShare: median, shares };
}

async function scoreHalf(server: LocalServer, half: string, people: readonly string[], namedFaces: number, replayRules: readonly GroupingRule[]): Promise<HalfScore> {
  const plainKey = await server.createService({ type: FACE_TASK, name: `${half} plain` });
  const key = await server.createService({ type: FACE_TASK, name: half });
  await call(server, key, 'PUT', '/unknown-people/settings', { remember: true, max_faces: 10_000 });
  const sent = await photosOf(people, server, plainKey);
  const answers = new Map<string, { who?: readonly (string | null)[]; faces: Face[] }>();
  const notFound: string[] = [];
  for (const photo of sent) {
    const faces = await detect(server, key, photo);
    const who = whoIsWhere(photo, faces);
    for (const person of photo.who) if (person && people.includes(person) && !who?.includes(person)) notFound.push(`${photo.frameId} (${person})`);
    answers.set(photo.frameId, { who, faces });
  }

  const listed = (await call(server, key, 'GET', '/unknown-people')).unknown_people as { id: string }[];
  const groups: { id: string; members: { id: string; who: string }[] }[] = [];
  for (const group of listed) {
    const person = await call(server, key, 'GET', `/unknown-people/${group.id}`);
    const members = (person.faces as { id: string; frame_id: string | null; face_height: number }[]).flatMap((face) => {
      const who = identify(face, answers);
      return who === undefined || who === null ? [] : [{ id: face.id, who }];
    });
    groups.push({ id: group.id, members });
  }
  // Each person's faces: those the face service found and kept (described: at least its smallest face).
  const facesOf = new Map<string, number>();
  for (const member of groups.flatMap((group) => group.members)) facesOf.set(member.who, (facesOf.get(member.who) ?? 0) + 1);
  const figures = groupingFigures(
    groups.map((group) => group.members.map((member) => member.who)),
    people,
    facesOf,
  );
  const photosSent = new Map<string, number>();
  for (const who of sent.flatMap((photo) => photo.who)) if (who !== null) photosSent.set(who, (photosSent.get(who) ?? 0) + 1);
  const ofSent = groupingFigures(
    groups.map((group) => group.members.map((member) => member.who)),
    people,
    photosSent,
  );
  if (replayRules.length > 0) await replay(server, key, groups, people, facesOf, replayRules);

  // Naming: each person's largest group, then every photo of the half's people again.
  for (const person of people) {
    const largest = groups.map((group) => ({ group, count: group.members.filter((member) => member.who === person).length })).sort((a, b) => b.count - a.count)[0];
    if (largest && largest.count > 0) await call(server, key, 'POST', `/unknown-people/${largest.group.id}/name`, { userid: person, faces: namedFaces });
  }
  const naming = { right: 0, wrong: 0, unknown: 0, wrongWhere: [] as string[], unknownWhere: [] as string[] };
  for (const photo of sent) {
    const faces = await detect(server, key, { ...photo, frameId: `again:${photo.frameId}` });
    const whoFound = whoIsWhere(photo, faces);
    if (!whoFound) continue;
    faces.forEach((face, index) => {
      const who = whoFound[index];
      if (who === null || !people.includes(who)) return;
      if (face.similarity === undefined) {
        naming.unknown++;
        naming.unknownWhere.push(`${photo.frameId} (${who})`);
      } else if (face.name === who) naming.right++;
      else {
        naming.wrong++;
        naming.wrongWhere.push(`${photo.frameId} (${who}) as ${face.name}`);
      }
    });
  }
  const strangers = { named: 0, of: 0 };
  for (const file of await strangerPhotos()) {
    for (const face of await detect(server, key, { frameId: `stranger:${path.basename(file)}`, bytes: await readFile(file), who: [] })) {
      strangers.of++;
      if (face.similarity !== undefined) strangers.named++;
    }
  }
  return {
    half,
    people,
    keptFaces: groups.reduce((sum, group) => sum + group.members.length, 0),
    groups: groups.length,
    pairwisePrecision: figures.pairwisePrecision,
    medianLargestShare: figures.medianLargestShare,
    medianShareOfSent: ofSent.medianLargestShare,
    largestShares: Object.fromEntries(people.map((person, index) => [person, `${Math.round(figures.shares[index] * (facesOf.get(person) ?? 0))}/${facesOf.get(person) ?? 0} kept, of ${photosSent.get(person) ?? 0} sent`])),
    notFound,
    naming,
    strangers,
  };
}

/** Other grouping rules replayed over the kept descriptors in the order they arrived: their precision and median share, to choose UNKNOWN_GROUPING on the TUNE half. */
async function replay(server: LocalServer, key: string, groups: readonly { members: readonly { id: string; who: string }[] }[], people: readonly string[], facesOf: ReadonlyMap<string, number>, rules: readonly GroupingRule[]) {
  const serviceId = (await server.domain.keys.authenticate(key))!.id;
  const cipher = new KeyCipher(loadServerSecret(undefined, server.dataDir), UNKNOWN_DESCRIPTOR_PURPOSE);
  const whoOf = new Map(groups.flatMap((group) => group.members.map((member) => [member.id, member.who] as const)));
  const rows = await server.db.selectFrom('unknown_faces').select(['id', 'descriptor_ciphertext', 'seen_at', 'frame_id']).where('service_id', '=', serviceId).orderBy('seen_at').execute();
  const faces = rows.map((row) => ({ id: row.id, frame: row.frame_id ?? row.id, descriptor: fromText(cipher.decrypt(row.descriptor_ciphertext, row.id)) }));
  for (const rule of rules) {
    const replayed = new Map<string, GroupFaces & { ids: string[] }>();
    for (const face of faces) {
      const joined = groupFor(face.descriptor, face.frame, replayed, rule) ?? face.id;
      const group = replayed.get(joined) ?? { descriptors: [], images: new Set<string>(), ids: [] };
      replayed.set(joined, { descriptors: [...group.descriptors, face.descriptor], images: new Set([...group.images, face.frame]), ids: [...group.ids, face.id] });
    }
    const identities = [...replayed.values()].map((group) => group.ids.flatMap((id) => whoOf.get(id) ?? []));
    const figures = groupingFigures(identities, people, facesOf);
    console.log(`replay ${JSON.stringify(rule)}: ${replayed.size} groups, pairwise precision ${figures.pairwisePrecision.toFixed(4)}, median largest share ${(100 * figures.medianLargestShare).toFixed(1)} %`);
  }
}

/** The rules `--replay` tries beside UNKNOWN_GROUPING. */
function replayRules(): GroupingRule[] {
  const rules: GroupingRule[] = [];
  for (const nearest of [0.78, 0.79, 0.8, 0.81, 0.82, 0.84]) for (const member of [0.72, 0.75, 0.78]) for (const margin of [0, 0.02, 0.03]) rules.push({ nearest, member, memberShare: 0.5, margin });
  return rules;
}

export async function evaluateUnknownFaces(withReplay: boolean, namedFaces: number = NAMED_FACES): Promise<void> {
  const server = await startLocalServer({ DETECTD_LOG_LEVEL: 'warn', DETECTD_MAX_BODY_BYTES: String(64 * 1024 * 1024) });
  try {
    const scores = [await scoreHalf(server, 'TUNE', TUNE, namedFaces, withReplay ? replayRules() : []), await scoreHalf(server, 'CHECK', CHECK, namedFaces, [])];
    console.log(`\nUnknown people through POST /api/v1/${FACE_TASK} (remembering on, nobody registered), grouping rule ${JSON.stringify(UNKNOWN_GROUPING)}, naming registers ${namedFaces} best faces`);
    for (const score of scores) {
      const { right, wrong, unknown, wrongWhere } = score.naming;
      const total = right + wrong + unknown;
      const percent = (count: number, of: number) => `${count}/${of} (${((100 * count) / Math.max(1, of)).toFixed(1)} %)`;
      console.log(`${score.half} (${score.people.join(', ')}): ${score.keptFaces} faces kept of the cast in ${score.groups} groups`);
      console.log(`  pairwise precision ${score.pairwisePrecision.toFixed(4)}; median largest-group share ${(100 * score.medianLargestShare).toFixed(1)} % of their kept faces, ${(100 * score.medianShareOfSent).toFixed(1)} % of their photos sent (${Object.entries(score.largestShares).map(([person, share]) => `${person} ${share}`).join(', ')})`);
      console.log(`  after naming each largest group: right ${percent(right, total)}, wrong ${percent(wrong, total)}, unknown ${percent(unknown, total)}; strangers named ${percent(score.strangers.named, score.strangers.of)}`);
      if (score.notFound.length > 0) console.log(`  not found when sent (or not told apart): ${score.notFound.join('; ')}`);
      if (wrongWhere.length > 0) console.log(`  wrong: ${wrongWhere.join('; ')}`);
      if (score.naming.unknownWhere.length > 0) console.log(`  unknown: ${score.naming.unknownWhere.join('; ')}`);
    }
  } finally {
    await server.close();
  }
}
