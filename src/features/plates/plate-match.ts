import type { Finding } from '../../tasks/finding.js';

/**
 * How a read plate is matched to a known one. Both are brought to a key: upper case, spaces,
 * dashes and dots dropped (people write `AB-123 C`, the reader reads `AB123C`), and the characters
 * a plate reader mistakes for one another written alike (LOOK_ALIKES). Two keys match within the
 * service's distance: the fewest characters to change, add or drop (Levenshtein). Which
 * look-alikes are folded and from which length a read may differ at all are measured in
 * docs/plates.md ("Known plates").
 */
import { distance as editDistance } from 'fastest-levenshtein';

/** A known plate's distance by default: one character. */
export const DEFAULT_KNOWN_PLATE_DISTANCE = 1;
/** The most a service may allow: beyond it, on plates of 5–8 characters, nearly any plate matches another. */
export const MAX_KNOWN_PLATE_DISTANCE = 3;
/** Reads (and known plates) shorter than this match only exactly: one character off a short plate is too often another plate. */
export const FUZZY_MATCH_MIN_LENGTH = 4;

/** Each character readers mistake for another, and the one both count as: O≡0, I≡1. */
const LOOK_ALIKES: Readonly<Record<string, string>> = { O: '0', I: '1' };
/** What people write between a plate's groups. */
const SEPARATORS = /[\s.\-·]/gu;

/** A plate as written, upper-cased without separators: how a known plate is shown and checked. */
export const plateText = (plate: string) => plate.normalize('NFKC').toUpperCase().replace(SEPARATORS, '');

/** A plate's match key: its text with the look-alikes folded, so `DO1 IAB` and `D01 1AB` are one plate. */
export const plateKey = (plate: string) => [...plateText(plate)].map((character) => LOOK_ALIKES[character] ?? character).join('');

/** A plate of a service's list, as matching needs it. */
export interface ListedPlate {
  /** As its owner wrote it. */
  readonly plate: string;
  readonly name: string;
}

/** The known plate a read matched, as its finding carries it (Finding.known): its name, the plate as written, and how many characters the read differs by (look-alikes counting as equal). */
export type KnownPlateMatch = NonNullable<Finding['known']>;

/**
 * Matches reads against `known` within `distance`: the nearest known plate wins; two known plates
 * of different names equally near are no match (which one it is cannot be told), and a read or a
 * known plate shorter than FUZZY_MATCH_MIN_LENGTH matches only exactly.
 */
export function plateMatcher(known: readonly ListedPlate[], distance: number): (read: string) => KnownPlateMatch | undefined {
  const keyed = known.map((entry) => ({ ...entry, key: plateKey(entry.plate) }));
  return (read) => {
    const key = plateKey(read);
    if (key.length === 0) return undefined;
    let best: KnownPlateMatch | undefined;
    let ambiguous = false;
    for (const entry of keyed) {
      const allowed = Math.min(key.length, entry.key.length) < FUZZY_MATCH_MIN_LENGTH ? 0 : distance;
      const apart = editDistance(key, entry.key);
      if (apart > allowed || (best && apart > best.distance)) continue;
      if (best && apart === best.distance) {
        ambiguous ||= best.name !== entry.name;
        continue;
      }
      best = { name: entry.name, plate: entry.plate, distance: apart };
      ambiguous = false;
    }
    return ambiguous ? undefined : best;
  };
}
