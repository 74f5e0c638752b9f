/**
 * `npm run eval -- --unknown-faces`: unknown people measured as the hidden checks of docs/faces.md
 * ("Unknown people") do it, through a real local server's REST routes. Remembering on and nobody
 * registered, each half's people are sent through `POST /api/v1/face-detection`, each photo with a
 * `frame_id`: their 5 crops, the group photos (who is where: face-recognition-eval.ts), and far
 * faces (36–64 px tall, pasted into a 1080p frame: far-frames.ts) of one of two variants, each on
 * a service of its own: every crop pasted alone (a face with no head, hair or shoulders around it
 * and a hard square edge: the hardest case) or every group photo pasted whole (faces in their
 * context). A group photo's people may belong to both halves: each face is scored in its person's. Then:
 * - grouping: pairwise precision of the groups (pairs of kept faces in one group that are one
 *   person), and the median over the half's people of their largest group's share of their faces;
 * - naming: each person's largest group named through REST, then every photo of them sent again:
 *   right, wrong person, unknown; and strangers (WIDER FACE, face-api's demo photos): named or not.
 * The people are split into a TUNE half (the grouping rule, unknown-grouping.ts, was chosen on it)
 * and a CHECK half, reported apart. `--replay` also prints, for the TUNE half with far crops, the
 * grouping figures of other rules replayed over the kept descriptors in arrival order.
 */
import './lib/typescript-workers.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { KeyCipher } from '../src/accounts/key-cipher.js';
import { loadServerSecret } from '../src/accounts/server-secret.js';
import { fromText } from '../src/features/faces/gallery/face-gallery.js';
import { GroupedFaces, type GroupingRule, UNKNOWN_GROUPING } from '../src/features/faces/gallery/unknown-grouping.js';
import { NAMED_FACES, UNKNOWN_DESCRIPTOR_PURPOSE } from '../src/features/faces/gallery/unknown-people.js';
import type { Box } from '../src/vision/image.js';
import { fraction, pastedInFrame } from './lib/far-frames.js';
import { type LocalServer, startLocalServer } from './lib/local-server.js';
import type { CocoDataset } from './coco-map.js';
import { GROUP_PHOTOS, PEOPLE, strangerPhotos } from './face-recognition-eval.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

const FACES_DIR = '../shared/eval/faces';
const COCO_DATASET = '../shared/eval/coco-val122';
const FACE_TASK = 'face-detection';
export const TUNE = ['amy', 'howard', 'leonard', 'raj'];
export const CHECK = PEOPLE.filter((person) => !TUNE.includes(person));
const FAR_HEIGHTS = { min: 36, max: 64 };
const FAR_SEED = 'unknown-faces-1';

interface Face {
  readonly name: string;
  readonly confidence: number;
  readonly similarity?: number;
  readonly bounding_box: { left: number; right: number; top: number; bottom: number };
}

/** The far faces sent beside the crops and the group photos. */
const FAR_VARIANTS = {
  'far crops': 'each crop pasted alone (no context: the hardest case)',
  'far group photos': 'each group photo pasted whole (faces in their context)',
} as const;
type FarVariant = keyof typeof FAR_VARIANTS;

/** One photo sent: its bytes, its frame_id, and who each face shown in it is, left to right (a stranger of a group photo named for it, so that their faces in its far frame are one person); in a far frame, where each was pasted. */
interface Sent {
  readonly frameId: string;
  readonly bytes: Buffer;
  readonly who: readonly string[];
  readonly at?: readonly Box[];
}

const area = (box: Box) => Math.max(0, box.right - box.left) * Math.max(0, box.bottom - box.top);
const overlap = (a: Box, b: Box) => area({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) });

/**
 * Who each face found in a photo is (index-aligned with `faces`, left to right; null: nobody of the
 * cast), or undefined when that cannot be told: a group photo whose faces found are not the faces
 * shown. A crop's person is its largest face; in a far frame, whose background may show other
 * faces, each pasted face is the face found most over where it was pasted.
 */
function whoIsWhere(photo: Sent, faces: readonly Face[]): readonly (string | null)[] | undefined {
  if (photo.at) {
    const who: (string | null)[] = faces.map(() => null);
    photo.at.forEach((pasted, index) => {
      const over = faces.map((face, found) => ({ found, overlap: who[found] === null ? overlap(face.bounding_box, pasted) : 0 })).sort((a, b) => b.overlap - a.overlap)[0];
      if (over && over.overlap > 0) who[over.found] = photo.who[index];
    });
    return who;
  }
  if (photo.who.length > 1 || faces.length === 0) return faces.length === photo.who.length ? photo.who : undefined;
  const largest = faces.reduce((chosen, face) => (area(face.bounding_box) > area(chosen.bounding_box) ? face : chosen));
  return faces.map((face) => (face === largest ? photo.who[0] : null));
}

interface HalfScore {
  readonly half: string;
  readonly variant: FarVariant;
  /** The far frames not built: their photo's faces found full size were not the faces shown. */
  readonly farNotBuilt: readonly string[];
  readonly people: readonly string[];
  readonly keptFaces: number;
  readonly groups: number;
  readonly pairwisePrecision: number;
  /** The groups holding more than one person: who, how many faces each. */
  readonly mixedGroups: readonly string[];
  readonly medianLargestShare: number;
  readonly largestShares: Record<string, string>;
  /** The median over people of their largest group's faces over the photos of them sent (a face not found, too small, or not told apart by height and confidence counts as missed). */
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

/**
 * A photo as the far frame `far:<name>`: scaled so that the median of its faces (as found full size
 * by `server`, any face service of it, left to right; a one-person photo's largest) is 36–64 px tall
 * (chosen by the name), pasted into a 1080p frame; undefined when the faces found are not the
 * `who.length` faces shown.
 */
async function farFrame(photo: Buffer, who: readonly string[], server: LocalServer, plainKey: string, backgrounds: readonly string[], name: string): Promise<Sent | undefined> {
  const found = (await detect(server, plainKey, { frameId: 'measure', bytes: photo, who: [] })).map((face) => face.bounding_box);
  const faces = who.length === 1 && found.length > 1 ? [found.reduce((largest, box) => (area(box) > area(largest) ? box : largest))] : found;
  if (faces.length !== who.length) return undefined;
  const key = `${FAR_SEED}:${name}`;
  const heights = faces.map((box) => box.bottom - box.top).sort((a, b) => a - b);
  const height = FAR_HEIGHTS.min + Math.floor(fraction(`${key}:height`) * (FAR_HEIGHTS.max - FAR_HEIGHTS.min + 1));
  const all = { left: Math.min(...faces.map((box) => box.left)), top: Math.min(...faces.map((box) => box.top)), right: Math.max(...faces.map((box) => box.right)), bottom: Math.max(...faces.map((box) => box.bottom)) };
  const { jpeg, placed } = await pastedInFrame(photo, all, height / heights[Math.floor(heights.length / 2)], backgrounds, key);
  return { frameId: `far:${name}`, bytes: jpeg, who, at: faces.map(placed) };
}

/** The half's photos: crops, group photos, and the variant's far frames (those that could not be built listed in `notBuilt`). */
async function photosOf(people: readonly string[], variant: FarVariant, server: LocalServer, plainKey: string, notBuilt: string[]): Promise<Sent[]> {
  const backgrounds = await peopleFreePhotos();
  const sent: Sent[] = [];
  const far = async (bytes: Buffer, who: readonly string[], name: string) => {
    const frame = await farFrame(bytes, who, server, plainKey, backgrounds, name);
    if (frame) sent.push(frame);
    else notBuilt.push(name);
  };
  for (const person of people) {
    for (let index = 1; index <= 5; index++) {
      const bytes = await readFile(path.join(FACES_DIR, person, `${person}${index}.png`));
      sent.push({ frameId: `crop:${person}${index}`, bytes, who: [person] });
      if (variant === 'far crops') await far(bytes, [person], `${person}${index}`);
    }
  }
  for (const [photo, cast] of Object.entries(GROUP_PHOTOS)) {
    const bytes = await readFile(path.join(FACES_DIR, photo));
    const who = cast.map((person, index) => person ?? `stranger ${index + 1} of ${photo}`);
    sent.push({ frameId: `group:${photo}`, bytes, who });
    if (variant === 'far group photos') await far(bytes, who, photo);
  }
  return sent;
}

/**
 * Who each kept face is: the face of its frame (as answered, with who each is) of its height and
 * detector confidence (which kept faces carry; the answer's is rounded to 5 decimals); undefined
 * where no face, or more than one, of the frame matches.
 */
function identify(kept: { frame_id: string | null; face_height: number; confidence: number }, answers: ReadonlyMap<string, { who?: readonly (string | null)[]; faces: readonly Face[] }>): string | null | undefined {
  const frame = kept.frame_id === null ? undefined : answers.get(kept.frame_id);
  if (!frame?.who) return undefined;
  const matching = frame.faces.flatMap((face, index) => (Math.abs(face.bounding_box.bottom - face.bounding_box.top - kept.face_height) <= 1 && Math.abs(face.confidence - kept.confidence) < 1e-4 ? [index] : []));
  if (matching.length !== 1) return undefined;
  return frame.who[matching[0]] ?? `stranger@${kept.frame_id}:${matching[0]}`;
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

async function scoreHalf(server: LocalServer, half: string, people: readonly string[], variant: FarVariant, namedFaces: number, replayRules: readonly GroupingRule[]): Promise<HalfScore> {
  const plainKey = await server.createService({ type: FACE_TASK, name: `${half} ${variant} plain` });
  const key = await server.createService({ type: FACE_TASK, name: `${half} ${variant}` });
  await call(server, key, 'PUT', '/unknown-people/settings', { remember: true, max_faces: 10_000 });
  const farNotBuilt: string[] = [];
  const sent = await photosOf(people, variant, server, plainKey, farNotBuilt);
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
    const members = (person.faces as { id: string; frame_id: string | null; face_height: number; confidence: number }[]).flatMap((face) => {
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
  for (const who of sent.flatMap((photo) => photo.who)) photosSent.set(who, (photosSent.get(who) ?? 0) + 1);
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
    variant,
    farNotBuilt,
    people,
    keptFaces: groups.reduce((sum, group) => sum + group.members.length, 0),
    groups: groups.length,
    pairwisePrecision: figures.pairwisePrecision,
    mixedGroups: groups.flatMap(({ members }) => {
      const counts = new Map<string, number>();
      for (const { who } of members) counts.set(who, (counts.get(who) ?? 0) + 1);
      return counts.size > 1 ? [[...counts].map(([who, count]) => `${who} ×${count}`).join(' + ')] : [];
    }),
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
  const rows = await faceTables(server.db).selectFrom('unknown_faces').select(['id', 'descriptor_ciphertext', 'seen_at', 'frame_id']).where('service_id', '=', serviceId).orderBy('seen_at').execute();
  const faces = rows.map((row) => ({ id: row.id, frame: row.frame_id ?? row.id, descriptor: fromText(cipher.decrypt(row.descriptor_ciphertext, row.id)) }));
  for (const rule of rules) {
    const grouped = new GroupedFaces();
    const replayed = new Map<string, string[]>();
    const groupsOfFrame = new Map<string, Set<string>>();
    for (const face of faces) {
      const inFrame = groupsOfFrame.get(face.frame) ?? new Set<string>();
      const joined = grouped.groupFor(face.descriptor, inFrame, rule) ?? face.id;
      grouped.add(face.id, joined, face.descriptor);
      groupsOfFrame.set(face.frame, inFrame.add(joined));
      replayed.set(joined, [...(replayed.get(joined) ?? []), face.id]);
    }
    const identities = [...replayed.values()].map((ids) => ids.flatMap((id) => whoOf.get(id) ?? []));
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
    const scores: HalfScore[] = [];
    for (const variant of Object.keys(FAR_VARIANTS) as FarVariant[]) {
      scores.push(await scoreHalf(server, 'TUNE', TUNE, variant, namedFaces, withReplay && variant === 'far crops' ? replayRules() : []));
      scores.push(await scoreHalf(server, 'CHECK', CHECK, variant, namedFaces, []));
    }
    console.log(`\nUnknown people through POST /api/v1/${FACE_TASK} (remembering on, nobody registered), grouping rule ${JSON.stringify(UNKNOWN_GROUPING)}, naming registers ${namedFaces} best faces`);
    for (const score of scores) {
      const { right, wrong, unknown, wrongWhere } = score.naming;
      const total = right + wrong + unknown;
      const percent = (count: number, of: number) => `${count}/${of} (${((100 * count) / Math.max(1, of)).toFixed(1)} %)`;
      console.log(`${score.half} (${score.people.join(', ')}) with ${score.variant}, ${FAR_VARIANTS[score.variant]}: ${score.keptFaces} faces kept of the cast in ${score.groups} groups`);
      if (score.farNotBuilt.length > 0) console.log(`  far frames not built (faces found full size not the faces shown): ${score.farNotBuilt.join(', ')}`);
      console.log(`  pairwise precision ${score.pairwisePrecision.toFixed(4)}; median largest-group share ${(100 * score.medianLargestShare).toFixed(1)} % of their kept faces, ${(100 * score.medianShareOfSent).toFixed(1)} % of their photos sent (${Object.entries(score.largestShares).map(([person, share]) => `${person} ${share}`).join(', ')})`);
      console.log(`  after naming each largest group: right ${percent(right, total)}, wrong ${percent(wrong, total)}, unknown ${percent(unknown, total)}; strangers named ${percent(score.strangers.named, score.strangers.of)}`);
      if (score.mixedGroups.length > 0) console.log(`  groups mixing people: ${score.mixedGroups.join('; ')}`);
      if (score.notFound.length > 0) console.log(`  not found when sent (or not told apart): ${score.notFound.join('; ')}`);
      if (wrongWhere.length > 0) console.log(`  wrong: ${wrongWhere.join('; ')}`);
      if (score.naming.unknownWhere.length > 0) console.log(`  unknown: ${score.naming.unknownWhere.join('; ')}`);
    }
  } finally {
    await server.close();
  }
}
