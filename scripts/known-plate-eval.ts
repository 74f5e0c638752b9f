/**
 * `npm run eval -- --known-plates`: known plates measured through the served path. Half of the
 * plates of ../shared/eval/plates (by the sha256 of `known-1:<plate>`) are added to a real
 * server's licence-plate service as known plates through `POST /api/v1/license-plate/known-plates`,
 * each with a name of its own; every close-up and its far-camera frame (scripts/plate-eval.ts) is
 * posted to `POST /v1/image/alpr`, and the plate over the label is scored: of the registered plates
 * found, the share that came back `known_name` with the right name; of the unregistered plates
 * found, the share that came back known at all (a false match). Before: what a client does today
 * without known plates, comparing the text with its list exactly. The photos' two halves
 * (splitHalves: `tune`, where the matching was chosen, and `check`, measured only) are reported
 * apart. Other matchings (look-alikes, distances) are scored on the same reads without another call.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { plateMatcher } from '../src/features/plates/plate-match.js';
import { type AlprPlate, FAR_SEED, type LabelledPlateImage, PLATE_DATASET, plateOver, plateSets, readPlateBenchmark, readThroughAlpr, servedAlpr } from './plate-eval.js';

const REGISTER_SEED = 'known-1';
/** The name each known plate is added with: a name of its own, so a right name is the right plate. */
const nameOf = (plate: string) => `owner of ${plate}`;

/** What one image's answer says of its labelled plate. */
interface KnownOutcome {
  readonly image: LabelledPlateImage;
  readonly registered: boolean;
  /** The answered plate over the label, if found. */
  readonly over: AlprPlate | undefined;
}

/** A way to match a read against the list: the served one (the server's `known_name`), or one scored on the read text here. */
interface Matching {
  readonly label: string;
  /** The name the read matches, if any. */
  name(plate: AlprPlate): string | undefined;
}

interface KnownScore {
  readonly registeredFound: number;
  readonly rightName: number;
  readonly wrongName: number;
  readonly unregisteredFound: number;
  readonly falseKnown: number;
}

function scoreKnown(outcomes: readonly KnownOutcome[], matching: Matching): KnownScore {
  const tally = { registeredFound: 0, rightName: 0, wrongName: 0, unregisteredFound: 0, falseKnown: 0 };
  for (const { image, registered, over } of outcomes) {
    if (!over) continue;
    const name = matching.name(over);
    if (registered) {
      tally.registeredFound++;
      if (name === nameOf(image.plate)) tally.rightName++;
      else if (name !== undefined) tally.wrongName++;
    } else {
      tally.unregisteredFound++;
      if (name !== undefined) tally.falseKnown++;
    }
  }
  return tally;
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;

/** The plates registered: half of the distinct labelled plates, by the sha256 of the seed and the plate. */
function registeredHalf(plates: readonly string[]): Set<string> {
  const key = (plate: string) => createHash('sha256').update(`${REGISTER_SEED}:${plate}`).digest('hex');
  const distinct = [...new Set(plates)].sort((a, b) => key(a).localeCompare(key(b)));
  return new Set(distinct.slice(0, Math.ceil(distinct.length / 2)));
}

/** A matching scored here on the read text: `fold` writes extra look-alikes alike (on the read and the list) before the served matcher's own folding. */
function localMatching(label: string, known: readonly string[], distance: number, fold: (text: string) => string = (text) => text): Matching {
  const match = plateMatcher(
    known.map((plate) => ({ plate: fold(plate), name: nameOf(plate) })),
    distance,
  );
  return { label, name: (plate) => match(fold(plate.text))?.name };
}

const folding = (pairs: Readonly<Record<string, string>>) => (text: string) => [...text].map((character) => pairs[character] ?? character).join('');

export async function evaluateKnownPlates(limit?: number): Promise<void> {
  const labelled = await readPlateBenchmark(PLATE_DATASET);
  const registered = registeredHalf(labelled.map((image) => image.plate));
  const known = [...registered];
  const served = await servedAlpr();
  try {
    const added = await fetch(`${served.url}/api/v1/license-plate/known-plates`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${served.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ plates: known.map((plate) => ({ plate, name: nameOf(plate) })) }),
    });
    if (added.status !== 201) throw new Error(`adding the known plates answered ${added.status}: ${await added.text()}`);
    const outcomes = { close: { tune: [] as KnownOutcome[], check: [] as KnownOutcome[] }, far: { tune: [] as KnownOutcome[], check: [] as KnownOutcome[] } };
    const outcomeOf = async (image: LabelledPlateImage, file: string): Promise<KnownOutcome> => ({
      image,
      registered: registered.has(image.plate),
      over: plateOver((await readThroughAlpr(served.url, await readFile(file))).plates, image),
    });
    for (const { half, close, far } of await plateSets(limit)) {
      for (let index = 0; index < close.length; index++) {
        outcomes.close[half].push(await outcomeOf(close[index].image, close[index].file));
        outcomes.far[half].push(await outcomeOf(far[index].image, far[index].file));
      }
    }
    const matchings: Matching[] = [
      // Before: the client compares the text with its list, exactly.
      { label: 'before: exact text', name: (plate) => (registered.has(plate.text) ? nameOf(plate.text) : undefined) },
      { label: 'served (known_name): O≡0, I≡1, ≤ 1', name: (plate) => plate.knownName },
      localMatching('O≡0, I≡1, exact', known, 0),
      localMatching('O≡0, I≡1, ≤ 2', known, 2),
      localMatching('+ B≡8, ≤ 1', known, 1, folding({ B: '8' })),
      localMatching('+ B≡8, S≡5, Z≡2, G≡6, ≤ 1', known, 1, folding({ B: '8', S: '5', Z: '2', G: '6' })),
    ];
    console.log(`Known plates through POST /v1/image/alpr (upload): ${registered.size} of ${new Set(labelled.map((image) => image.plate)).size} distinct plates registered (seed ${REGISTER_SEED})`);
    const header = ['set', 'half', 'matching', 'registered found', 'right name', 'wrong name', 'unregistered found', 'known (false)'];
    const rows = [header];
    for (const kind of ['close', 'far'] as const) {
      for (const half of ['tune', 'check'] as const) {
        for (const matching of matchings) {
          const s = scoreKnown(outcomes[kind][half], matching);
          rows.push([kind === 'close' ? 'close-ups' : `far (${FAR_SEED})`, half, matching.label, String(s.registeredFound), percent(s.rightName, s.registeredFound), percent(s.wrongName, s.registeredFound), String(s.unregisteredFound), percent(s.falseKnown, s.unregisteredFound)]);
        }
      }
    }
    const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column].length)));
    for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
    const missed = outcomes.close.check.filter((outcome) => outcome.registered && outcome.over && outcome.over.knownName !== nameOf(outcome.image.plate));
    console.log(`\nClose-ups, check half, registered plates found but not named right: ${missed.map((outcome) => `${outcome.image.plate} read ${outcome.over!.text}`).join(', ') || 'none'}`);
  } finally {
    await served.close();
  }
}
