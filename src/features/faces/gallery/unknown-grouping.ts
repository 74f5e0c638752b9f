import { farthestFor, similarityOfSquared, squaredDistanceWithin } from './face-similarity.js';

/**
 * When a kept unknown face joins an unknown person (a group) rather than starting one. Stricter
 * than naming (face-similarity.ts DEFAULT_FACE_MATCH_THRESHOLD): a wrong merge shows one person's
 * faces under another and, once named, names strangers; two groups of one person only cost a merge.
 */
export interface GroupingRule {
  /** The face's similarity to the group's most alike face must reach this. */
  readonly nearest: number;
  /** … and this share of the group's faces must each be at least `member` alike. */
  readonly memberShare: number;
  readonly member: number;
  /** … and no other group's most alike face may come within this of the best group's. */
  readonly margin: number;
}

/** Tuned on the TUNE half of the shared photos (`npm run eval -- --unknown-faces`; docs/faces.md has the figures). */
export const UNKNOWN_GROUPING: GroupingRule = { nearest: 0.82, memberShare: 0.5, member: 0.78, margin: 0.02 };

/** A group as its faces' rows know it: its id, and how many rows are its. */
interface Group {
  readonly id: string;
  size: number;
}

/** Rows a new store holds before it first grows. */
const FIRST_ROWS = 64;

/**
 * Kept faces' descriptors and the group of each: one row per face in one Float32Array (in no
 * order), each row's group by number. Keeping compares a face with every kept face (up to
 * 100,000): rows side by side are read in one pass over memory in order, not array by array.
 */
export class GroupedFaces {
  #width = 0;
  #rows = new Float32Array(0);
  /** Each row's group, by its number in #groups. */
  #groupOf = new Int32Array(0);
  /** Each row's face id. */
  readonly #faces: string[] = [];
  readonly #rowOf = new Map<string, number>();
  /** Groups by number; a number freed by a group's last face is used again. */
  readonly #groups: (Group | undefined)[] = [];
  readonly #numberOf = new Map<string, number>();
  readonly #freeNumbers: number[] = [];

  /** How many faces are held. */
  get size(): number {
    return this.#faces.length;
  }

  /** A copy of the face's descriptor, or undefined when it is not held. */
  descriptorOf(faceId: string): Float32Array | undefined {
    const row = this.#rowOf.get(faceId);
    return row === undefined ? undefined : this.#rows.slice(row * this.#width, (row + 1) * this.#width);
  }

  /** Holds face `faceId` (not held yet) of group `groupId`, which it starts when new. */
  add(faceId: string, groupId: string, descriptor: Float32Array): void {
    if (this.#faces.length === 0) this.#width = descriptor.length;
    if (descriptor.length !== this.#width) throw new RangeError(`descriptors of ${this.#width} and ${descriptor.length} values cannot be grouped`);
    const row = this.#faces.length;
    if ((row + 1) * this.#width > this.#rows.length) this.#grow(Math.max(FIRST_ROWS, 2 * row));
    let number = this.#numberOf.get(groupId);
    if (number === undefined) {
      number = this.#freeNumbers.pop() ?? this.#groups.length;
      this.#groups[number] = { id: groupId, size: 0 };
      this.#numberOf.set(groupId, number);
    }
    this.#groups[number]!.size++;
    this.#rows.set(descriptor, row * this.#width);
    this.#groupOf[row] = number;
    this.#faces.push(faceId);
    this.#rowOf.set(faceId, row);
  }

  /** Lets go of the face (nothing when it is not held): the last row takes its place; its group goes with its last face. */
  remove(faceId: string): void {
    const row = this.#rowOf.get(faceId);
    if (row === undefined) return;
    const number = this.#groupOf[row];
    const group = this.#groups[number]!;
    if (--group.size === 0) {
      this.#groups[number] = undefined;
      this.#numberOf.delete(group.id);
      this.#freeNumbers.push(number);
    }
    const last = this.#faces.length - 1;
    if (row !== last) {
      this.#rows.copyWithin(row * this.#width, last * this.#width, (last + 1) * this.#width);
      this.#groupOf[row] = this.#groupOf[last];
      this.#faces[row] = this.#faces[last];
      this.#rowOf.set(this.#faces[row], row);
    }
    this.#faces.pop();
    this.#rowOf.delete(faceId);
  }

  /**
   * The group `descriptor` joins under `rule`, or undefined: it starts a group of its own. The
   * groups in `excluded` are never joined: they hold a face of the same image, and one image
   * shows a person once.
   */
  groupFor(descriptor: Float32Array, excluded: ReadonlySet<string>, rule: GroupingRule = UNKNOWN_GROUPING): string | undefined {
    if (this.#faces.length > 0 && descriptor.length !== this.#width) throw new RangeError(`descriptors of ${descriptor.length} and ${this.#width} values cannot be compared`);
    // A similarity under `floor` decides nothing (no member, no qualifying group, and as a
    // runner-up it leaves any qualifying best ahead by the margin), so its sum stops early.
    const farthest = farthestFor(Math.min(rule.member, rule.nearest - rule.margin));
    const nearest = new Float64Array(this.#groups.length).fill(-Infinity);
    const alike = new Int32Array(this.#groups.length);
    for (let row = 0, offset = 0; row < this.#faces.length; row++, offset += this.#width) {
      const squared = squaredDistanceWithin(descriptor, this.#rows, offset, farthest);
      if (squared > farthest) continue;
      const similarity = similarityOfSquared(squared);
      const number = this.#groupOf[row];
      if (similarity > nearest[number]) nearest[number] = similarity;
      if (similarity >= rule.member) alike[number]++;
    }
    let best: { id: string; nearest: number } | undefined;
    let runnerUp = 0;
    for (const [number, group] of this.#groups.entries()) {
      if (!group || excluded.has(group.id)) continue;
      const qualifies = nearest[number] >= rule.nearest && alike[number] >= rule.memberShare * group.size;
      if (qualifies && (!best || nearest[number] > best.nearest)) {
        if (best) runnerUp = Math.max(runnerUp, best.nearest);
        best = { id: group.id, nearest: nearest[number] };
      } else {
        runnerUp = Math.max(runnerUp, nearest[number]);
      }
    }
    return best && best.nearest - runnerUp >= rule.margin ? best.id : undefined;
  }

  #grow(rows: number): void {
    const grown = new Float32Array(rows * this.#width);
    grown.set(this.#rows);
    this.#rows = grown;
    const groupOf = new Int32Array(rows);
    groupOf.set(this.#groupOf);
    this.#groupOf = groupOf;
  }
}
