import { faceSimilarityFrom } from './face-similarity.js';

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

/** A group as grouping sees it: its faces' descriptors, and the images they came from (two faces of one image are two people). */
export interface GroupFaces {
  readonly descriptors: readonly Float32Array[];
  readonly images: ReadonlySet<string>;
}

/**
 * The group `descriptor` joins under `rule`, or undefined: it starts a group of its own. A group
 * that already holds a face of the same image (`image`) is never joined: one image shows a person once.
 */
export function groupFor(descriptor: Float32Array, image: string, groups: ReadonlyMap<string, GroupFaces>, rule: GroupingRule = UNKNOWN_GROUPING): string | undefined {
  // Keeping compares a face with every kept face (up to 100,000): a similarity under `floor` decides nothing (no
  // member, no qualifying group, and as a runner-up it leaves any qualifying best ahead by the margin), so its sum stops early.
  const floor = Math.min(rule.member, rule.nearest - rule.margin);
  let best: { id: string; nearest: number } | undefined;
  let runnerUp = 0;
  for (const [id, group] of groups) {
    if (group.images.has(image)) continue;
    let nearest = -Infinity;
    let alike = 0;
    for (const member of group.descriptors) {
      const similarity = faceSimilarityFrom(descriptor, member, floor);
      if (similarity > nearest) nearest = similarity;
      if (similarity >= rule.member) alike++;
    }
    const qualifies = nearest >= rule.nearest && alike >= rule.memberShare * group.descriptors.length;
    if (qualifies && (!best || nearest > best.nearest)) {
      if (best) runnerUp = Math.max(runnerUp, best.nearest);
      best = { id, nearest };
    } else {
      runnerUp = Math.max(runnerUp, nearest);
    }
  }
  return best && best.nearest - runnerUp >= rule.margin ? best.id : undefined;
}
